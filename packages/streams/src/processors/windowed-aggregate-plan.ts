/**
 * What the DSL needs to add one windowed aggregation (or one suppress) to a topology: the
 * processor supplier and the store builders to connect it to, built from the user's choices.
 * So `windowedBy(...).count(...)` in the DSL is one call here plus its own node bookkeeping,
 * and the store layout (names, sizes, retention, the sliding raw records store) stays in this
 * part.
 */
import type { ProcessorSupplier } from '../api/processor.js'
import type { Windowed } from '../api/record.js'
import type { Serde } from '../api/serde.js'
import { StreamsError } from '../errors.js'
import type { StateStore, StoreBuilder } from '../state/store-types.js'
import { type StoreOptions, Stores } from '../state/stores.js'
import { SessionWindows } from '../windows/session-windows.js'
import { SlidingWindows } from '../windows/sliding-windows.js'
import { TimeWindows } from '../windows/time-windows.js'
import { sessionWindowAggregateSupplier } from './session-window-aggregate.js'
import { slidingRecordsSerde } from './sliding-records-serde.js'
import {
  slidingRecordsRetentionMs,
  slidingRecordsStoreName,
  slidingWindowAggregateSupplier,
} from './sliding-window-aggregate.js'
import type { SuppressOptions } from './suppress-processor.js'
import { suppressSupplier } from './suppress-processor.js'
import type { Suppressed } from './suppressed.js'
import { timeWindowAggregateSupplier } from './time-window-aggregate.js'
import type { WindowAggregation } from './window-aggregation.js'

export type AnyWindows = TimeWindows | SlidingWindows | SessionWindows

export interface WindowedAggregateSpec<K, V, A> {
  /** The user-given store name (Materialized.as in Kafka); required, never generated. */
  readonly storeName: string
  readonly windows: AnyWindows
  readonly aggregation: WindowAggregation<K, V, A>
  readonly keySerde: Serde<K>
  /** The input values' serde: sliding windows need it (their raw records store holds the values). */
  readonly valueSerde: Serde<V> | undefined
  readonly aggregateSerde: Serde<A>
  /** On disk (lmdb) rather than in memory (default false). */
  readonly persistent?: boolean
  /** Longer than the default (the windows' retentionMs) to keep windows for queries. */
  readonly retentionMs?: number
  readonly storeOptions?: StoreOptions
}

export interface WindowedAggregatePlan<K, V, A> {
  readonly supplier: ProcessorSupplier<K, V, Windowed<K>, A>
  /** Every store the processor reads and writes; the result store first. */
  readonly stores: readonly StoreBuilder<StateStore>[]
  readonly windows: AnyWindows
  /** The result store's name, which suppress reads to rebuild its buffer after a restart. */
  readonly resultStore: string
}

/** Throws StreamsError when the topology is written (a bad retention, a session aggregate without a merger). */
export function windowedAggregatePlan<K, V, A>(spec: WindowedAggregateSpec<K, V, A>): WindowedAggregatePlan<K, V, A> {
  const plan = planOf(spec)
  plan.supplier() // The processors check their options when made: fail now, not in the first task.
  return plan
}

function planOf<K, V, A>(spec: WindowedAggregateSpec<K, V, A>): WindowedAggregatePlan<K, V, A> {
  const { storeName, windows, aggregation, keySerde, aggregateSerde, storeOptions } = spec
  const retentionMs = spec.retentionMs ?? windows.retentionMs
  if (retentionMs < windows.retentionMs) {
    throw new StreamsError(
      'CONFIG',
      `windowed ${aggregation.name} '${storeName}': retention ${retentionMs} ms is shorter than the windows can change (${windows.retentionMs} ms)`,
      { details: { store: storeName } },
    )
  }
  const persistent = spec.persistent ?? false
  const stores = persistent ? persistentStores : memoryStores
  if (windows instanceof TimeWindows) {
    return {
      supplier: timeWindowAggregateSupplier({ storeName, windows, aggregation }),
      stores: [
        stores.window(storeName, keySerde, aggregateSerde, {
          ...storeOptions,
          windowSizeMs: windows.sizeMs,
          retentionMs,
        }),
      ],
      windows,
      resultStore: storeName,
    }
  }
  if (windows instanceof SlidingWindows) {
    const recordsName = slidingRecordsStoreName(storeName)
    if (spec.valueSerde === undefined) {
      throw new StreamsError(
        'TOPOLOGY',
        `sliding ${aggregation.name} '${storeName}' needs the input's valueSerde (the raw records store '${recordsName}' holds the values)`,
        { details: { store: storeName } },
      )
    }
    return {
      supplier: slidingWindowAggregateSupplier({ storeName, windows, aggregation }),
      stores: [
        stores.window(storeName, keySerde, aggregateSerde, {
          ...storeOptions,
          windowSizeMs: windows.timeDifferenceMs,
          retentionMs,
        }),
        stores.window(recordsName, keySerde, slidingRecordsSerde(spec.valueSerde), {
          ...storeOptions,
          windowSizeMs: 1,
          retentionMs: Math.max(retentionMs, slidingRecordsRetentionMs(windows)),
        }),
      ],
      windows,
      resultStore: storeName,
    }
  }
  if (windows instanceof SessionWindows) {
    return {
      supplier: sessionWindowAggregateSupplier({ storeName, windows, aggregation }),
      stores: [stores.session(storeName, keySerde, aggregateSerde, { ...storeOptions, retentionMs })],
      windows,
      resultStore: storeName,
    }
  }
  throw new StreamsError('TOPOLOGY', `windowedBy: not a window definition: ${String(windows)}`)
}

export interface SuppressPlan<K, V> {
  readonly supplier: ProcessorSupplier<K, V, K, V>
  /** Stores the suppress node must be connected to (the upstream result store, to rebuild from). */
  readonly connectedStores: readonly string[]
}

/**
 * suppress on a windowed table made by `upstream` (untilWindowCloses or untilTimeLimit), or on
 * any table (untilTimeLimit only; `upstream` undefined).
 */
export function suppressPlan<K, V>(
  name: string,
  suppressed: Suppressed,
  upstream?: Pick<WindowedAggregatePlan<unknown, unknown, unknown>, 'windows' | 'resultStore'>,
  identity?: Pick<SuppressOptions<K>, 'keyIdentity' | 'sizeOf'>,
): SuppressPlan<K, V> {
  const rebuild = suppressed.kind === 'until-window-closes' && upstream !== undefined
  const options: SuppressOptions<K> = {
    name,
    suppressed,
    windows: upstream?.windows,
    rebuildFromStore: rebuild ? upstream.resultStore : undefined,
    ...identity,
  }
  const supplier = suppressSupplier<K, V>(options)
  supplier() // Checks the options now (untilWindowCloses needs the windows), not in the first task.
  return { supplier, connectedStores: rebuild ? [upstream.resultStore] : [] }
}

const memoryStores = {
  window: Stores.inMemoryWindowStore,
  session: Stores.inMemorySessionStore,
}

const persistentStores = {
  window: Stores.persistentWindowStore,
  session: Stores.persistentSessionStore,
}
