/**
 * StreamJoined: the options of a stream–stream join (Kafka Streams' StreamJoined): the serdes
 * of the key and of both sides' values, and the user-given name its state stores derive from.
 * The name is required (docs/streams.md §2: no generated store names), and the stores are:
 *
 * - `<name>-this-join-store`: the left side's records (a window store);
 * - `<name>-other-join-store`: the right side's records (a window store);
 * - `<name>-outer-shared-join-store`: left and outer joins only, the records still waiting
 *   for a match (a key-value store, pending-join-store.ts).
 *
 * Each is logged to `<application>-<store>-changelog` unless logging is disabled.
 */
import type { Serde } from '../api/serde.js'
import { StreamsError } from '../errors.js'
import type { KeyValueStore, StoreBuilder, WindowStore } from '../state/store-types.js'
import { Stores } from '../state/stores.js'
import type { JoinWindows } from './join-windows.js'
import type { JoinKind } from './join-types.js'
import { type PendingKey, type PendingValues, pendingKeySerde, pendingValuesSerde } from './pending-join-store.js'
import { valueListSerde } from './value-list-serde.js'

export const THIS_JOIN_STORE_SUFFIX = '-this-join-store'
export const OTHER_JOIN_STORE_SUFFIX = '-other-join-store'
export const OUTER_SHARED_JOIN_STORE_SUFFIX = '-outer-shared-join-store'

export interface StreamJoinedOptions<K, V1, V2> {
  readonly keySerde: Serde<K>
  readonly valueSerde: Serde<V1>
  readonly otherValueSerde: Serde<V2>
  /** The name the three store names derive from. */
  readonly storeName: string
  /** On-disk stores (default) or in-memory ones. */
  readonly persistent: boolean
  /** Back the stores with changelogs (default true). */
  readonly logging: boolean
}

export class StreamJoined<K, V1, V2> {
  private constructor(readonly options: StreamJoinedOptions<K, V1, V2>) {}

  static with<K, V1, V2>(
    keySerde: Serde<K>,
    valueSerde: Serde<V1>,
    otherValueSerde: Serde<V2>,
  ): StreamJoined<K, V1, V2> {
    return new StreamJoined({ keySerde, valueSerde, otherValueSerde, storeName: '', persistent: true, logging: true })
  }

  withStoreName(storeName: string): StreamJoined<K, V1, V2> {
    return new StreamJoined({ ...this.options, storeName })
  }

  withInMemoryStores(): StreamJoined<K, V1, V2> {
    return new StreamJoined({ ...this.options, persistent: false })
  }

  withLoggingDisabled(): StreamJoined<K, V1, V2> {
    return new StreamJoined({ ...this.options, logging: false })
  }
}

export interface StreamJoinStoreNames {
  readonly left: string
  readonly right: string
  /** Absent for an inner join (nothing waits for its window to close). */
  readonly pending?: string
}

export function streamJoinStoreNames(storeName: string, kind: JoinKind): StreamJoinStoreNames {
  if (typeof storeName !== 'string' || storeName.length === 0) {
    throw new StreamsError(
      'TOPOLOGY',
      'a stream-stream join needs a store name (StreamJoined.with(...).withStoreName(name)): its stores are named after it',
    )
  }
  return {
    left: storeName + THIS_JOIN_STORE_SUFFIX,
    right: storeName + OTHER_JOIN_STORE_SUFFIX,
    pending: kind === 'inner' ? undefined : storeName + OUTER_SHARED_JOIN_STORE_SUFFIX,
  }
}

export interface StreamJoinStoreBuilders<K, V1, V2> {
  readonly names: StreamJoinStoreNames
  readonly left: StoreBuilder<WindowStore<K, V1[]>>
  readonly right: StoreBuilder<WindowStore<K, V2[]>>
  readonly pending?: StoreBuilder<KeyValueStore<PendingKey<K>, PendingValues<V1, V2>>>
}

/**
 * The builders of a join's stores, for the topology to register and connect to both side
 * processors. The window stores keep a record for its whole span plus the grace period; the
 * write cache is off, since every write must be visible to the other side's next lookup and a
 * join never rewrites a key often enough for a cache to absorb anything.
 */
export function streamJoinStores<K, V1, V2>(
  kind: JoinKind,
  windows: JoinWindows,
  joined: StreamJoined<K, V1, V2>,
): StreamJoinStoreBuilders<K, V1, V2> {
  const o = joined.options
  const names = streamJoinStoreNames(o.storeName, kind)
  const windowOptions = {
    windowSizeMs: windows.sizeMs,
    retentionMs: windows.retentionMs,
    logging: o.logging,
    caching: false,
  }
  const windowStore = o.persistent ? Stores.persistentWindowStore : Stores.inMemoryWindowStore
  const keyValueStore = o.persistent ? Stores.persistentKeyValueStore : Stores.inMemoryKeyValueStore
  return {
    names,
    left: windowStore(names.left, o.keySerde, valueListSerde(o.valueSerde), windowOptions),
    right: windowStore(names.right, o.keySerde, valueListSerde(o.otherValueSerde), windowOptions),
    pending:
      names.pending === undefined
        ? undefined
        : keyValueStore(
            names.pending,
            pendingKeySerde(o.keySerde),
            pendingValuesSerde(o.valueSerde, o.otherValueSerde),
            {
              logging: o.logging,
              caching: false,
            },
          ),
  }
}
