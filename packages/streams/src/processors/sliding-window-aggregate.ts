/**
 * count / reduce / aggregate over sliding windows (KIP-450 semantics; windows/sliding-windows.ts).
 *
 * The implementation is the simple exact one: the processor keeps the key's raw records (by
 * timestamp) in a second window store, named `<store>-sliding-records` (SLIDING_RECORDS_SUFFIX;
 * its changelog is `<application>-<store>-sliding-records-changelog`), and recomputes each
 * window a record touches from the records inside it. So an out-of-order record lands in exactly
 * the windows it belongs to, whatever came before it. The cost is a scan of the records within
 * twice the time difference per input record, which is fine for the windows sliding windows are
 * meant for (seconds to minutes of one key's records); Kafka's incremental version is an
 * optimisation that can replace this file without changing its output.
 *
 * A record at t touches:
 * - the left window of every record r with t <= r <= t + difference (they all contain t,
 *   including t's own left window);
 * - the right window of every record r with t - difference - 1 <= r < t (they contain t, and t
 *   is what makes them exist if nothing else did);
 * - its own right window [t + 1, t + 1 + difference], made the first time a later record is in it.
 * Closed windows are never updated (closed is final, so suppress emits one result per window);
 * a record is dropped as late when its last possible window [t, t + difference] is closed.
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../api/processor.js'
import type { StreamRecord, Windowed } from '../api/record.js'
import { StreamsError } from '../errors.js'
import type { WindowStore } from '../state/store-types.js'
import type { WindowBounds } from '../windows/durations.js'
import type { SlidingWindows } from '../windows/sliding-windows.js'
import { LatenessCounters } from './lateness-counters.js'
import type { WindowAggregation } from './window-aggregation.js'

/** The suffix of the store of raw records a sliding aggregation keeps beside its result store. */
export const SLIDING_RECORDS_SUFFIX = '-sliding-records'

export function slidingRecordsStoreName(storeName: string): string {
  return `${storeName}${SLIDING_RECORDS_SUFFIX}`
}

/**
 * The raw records store must keep every record an open window holds, and the record just
 * before the oldest open window (its right window may still be made): difference + grace + 1.
 * Its window size is 1 ms (a "window" is one timestamp; the store needs a positive size).
 */
export function slidingRecordsRetentionMs(windows: SlidingWindows): number {
  return windows.retentionMs + 1
}

export interface SlidingWindowAggregateOptions<K, V, A> {
  /** The result window store (size = the time difference, retention >= difference + grace). */
  readonly storeName: string
  readonly windows: SlidingWindows
  readonly aggregation: WindowAggregation<K, V, A>
}

interface TimedValues<V> {
  readonly timestamp: number
  /** The key's values at this timestamp, in arrival order. */
  readonly values: readonly V[]
}

export class SlidingWindowAggregateProcessor<K, V, A> implements Processor<K, V, Windowed<K>, A> {
  readonly counters = new LatenessCounters()
  private context!: ProcessorContext<Windowed<K>, A>
  private store!: WindowStore<K, A>
  private records!: WindowStore<K, V[]>

  constructor(private readonly options: SlidingWindowAggregateOptions<K, V, A>) {}

  init(context: ProcessorContext<Windowed<K>, A>): void {
    this.context = context
    this.counters.attach(context)
    const { storeName, windows, aggregation } = this.options
    this.store = context.getStateStore<WindowStore<K, A>>(storeName)
    this.records = context.getStateStore<WindowStore<K, V[]>>(slidingRecordsStoreName(storeName))
    const what = `sliding ${aggregation.name}`
    if (this.store.windowSizeMs !== windows.timeDifferenceMs) {
      throw new StreamsError(
        'TOPOLOGY',
        `${what}: store '${storeName}' has window size ${this.store.windowSizeMs} ms, not the time difference ${windows.timeDifferenceMs} ms`,
        { details: { store: storeName } },
      )
    }
    if (this.store.retentionMs < windows.retentionMs) {
      throw new StreamsError('CONFIG', `${what}: store '${storeName}' keeps windows less than difference + grace`, {
        details: { store: storeName },
      })
    }
    if (this.records.retentionMs < slidingRecordsRetentionMs(windows)) {
      throw new StreamsError(
        'CONFIG',
        `${what}: store '${slidingRecordsStoreName(storeName)}' keeps records less than difference + grace + 1 ms`,
        { details: { store: slidingRecordsStoreName(storeName) } },
      )
    }
  }

  process(record: StreamRecord<K, V>): void {
    const { key, value, timestamp: t } = record
    if (key === null || value === null || t < 0) {
      this.counters.countSkipped()
      return
    }
    const { windows } = this.options
    const difference = windows.timeDifferenceMs
    const streamTime = this.counters.streamTimeFor(record)
    if (windows.closeTimeMs({ start: t, end: t + difference }) <= streamTime) {
      this.counters.countDroppedLate()
      return
    }
    this.records.put(key, [...(this.records.fetch(key, t) ?? []), value], t)
    const nearby = [...this.timedValues(key, t - difference - 1, t + difference + 1)]

    // The windows that contain t, by start (a left and a right window may be the same window).
    const touched = new Map<number, WindowBounds>()
    for (const { timestamp: r } of nearby) {
      if (r >= t && r <= t + difference) {
        const left = windows.leftWindowOf(r)
        touched.set(left.start, left)
      } else if (r < t && r >= t - difference - 1) {
        const right = windows.rightWindowOf(r)
        touched.set(right.start, right)
      }
    }
    for (const window of [...touched.values()].sort((a, b) => a.start - b.start)) {
      if (windows.closeTimeMs(window) > streamTime) this.update(key, window, nearby, record)
    }
    const ownRight = windows.rightWindowOf(t)
    const laterRecord = nearby.some(({ timestamp: r }) => r >= ownRight.start && r <= ownRight.end)
    if (laterRecord && this.store.fetch(key, ownRight.start) === undefined) {
      this.update(key, ownRight, nearby, record)
    }
    if (this.counters.isOutOfOrder(record)) this.counters.countOutOfOrder()
  }

  /** Recomputes the window from its records, stores and forwards it. */
  private update(key: K, window: WindowBounds, nearby: readonly TimedValues<V>[], record: StreamRecord<K, V>): void {
    const { aggregation } = this.options
    // A flag rather than `undefined`, since an aggregate may itself be undefined.
    let empty = true
    let aggregate!: A
    for (const { timestamp, values } of nearby) {
      if (timestamp < window.start || timestamp > window.end) continue
      for (const value of values) {
        aggregate = empty ? aggregation.first(key, value) : aggregation.add(key, value, aggregate)
        empty = false
      }
    }
    if (empty) return
    this.store.put(key, aggregate, window.start)
    this.context.forward({
      key: { key, window },
      value: aggregate,
      timestamp: record.timestamp,
      headers: record.headers,
    })
  }

  private *timedValues(key: K, from: number, to: number): IterableIterator<TimedValues<V>> {
    for (const entry of this.records.fetchRange(key, Math.max(0, from), to)) {
      yield { timestamp: entry.windowStart, values: entry.value }
    }
  }
}

export function slidingWindowAggregateSupplier<K, V, A>(
  options: SlidingWindowAggregateOptions<K, V, A>,
): ProcessorSupplier<K, V, Windowed<K>, A> {
  return () => new SlidingWindowAggregateProcessor(options)
}
