/**
 * State stores: what processors read and write, what the runtime restores from changelogs and
 * what interactive queries read. Every store has a name the user gives (never a generated one,
 * so adding an operator never renames a changelog: Kafka's KIP-372 pain).
 *
 * Layers, innermost first (docs/streams.md):
 * - a bytes engine: in memory (sorted) or persistent on disk (the embedded engine chosen in
 *   docs/decisions.md), keys ordered as unsigned bytes (Buffer.compare);
 * - change logging: every write that leaves the cache is sent to the store's changelog topic
 *   `<application>-<store>-changelog` (partition = task partition) through ChangelogWriter;
 * - the write cache: absorbs repeated writes to a key between commits (flushed on commit or
 *   when full; a flush also forwards the newest values downstream when the DSL asks);
 * - the typed face: serdes turn K and V into bytes.
 * All operations are synchronous (see api/processor.ts): the engine may buffer and make writes
 * durable in `flush()`, which the runtime calls before it commits input offsets.
 */
import type { TaskId } from '../api/task-id.js'
import type { Windowed } from '../api/record.js'

/** One changelog record, as written and as read back during restore. */
export interface ChangelogRecord {
  readonly key: Buffer
  /** null: the key was deleted (a tombstone in the compacted changelog). */
  readonly value: Buffer | null
  readonly timestamp: number
}

/** The runtime's producer as a store sees it (a store never sees a Producer). */
export interface ChangelogWriter {
  /** Queues a changelog write; the runtime flushes and waits for acks before committing offsets. */
  send(record: ChangelogRecord): void
}

export interface StateStoreContext {
  readonly applicationId: string
  readonly taskId: TaskId
  /** A directory this store may own files in (persistent stores); created by the runtime. */
  readonly stateDir: string
  /** Absent when the store is not logged (logging disabled, or a standby/restore is applying). */
  readonly changelog?: ChangelogWriter
  /** The task's stream time (window and session stores drop what falls out of retention). */
  streamTimeMs(): number
  /**
   * Added by the state stores part: the timestamp of the record being processed, which the
   * changelog records of its writes carry (as Kafka's do). Absent, or negative outside a
   * record: the stores use stream time instead.
   */
  recordTimestampMs?(): number
}

/**
 * Added by the state stores part: one key the write cache wrote below on a flush or an eviction,
 * with the value it replaced, so the DSL can forward table updates downstream on flush (Kafka's
 * cache forwarding). `null` is "none": a delete for newValue, no earlier value for oldValue.
 */
export interface FlushedEntry<K, V> {
  readonly key: K
  readonly newValue: V | null
  readonly oldValue: V | null
  readonly timestamp: number
}

/** Added by the state stores part: called with the entries of each flush or eviction, oldest write first. */
export type FlushListener<K, V> = (entries: readonly FlushedEntry<K, V>[]) => void

export interface StateStore {
  readonly name: string
  readonly persistent: boolean
  init(context: StateStoreContext): void
  /** Applies changelog records (restore on start or rebalance, and standby updates); not logged again. */
  restoreBatch(records: readonly ChangelogRecord[]): void
  /** Empties the write cache (logging what it held) and makes the engine's writes durable. */
  flush(): void
  close(): void
  /** false after close(). */
  readonly isOpen: boolean
}

export interface KeyValue<K, V> {
  readonly key: K
  readonly value: V
}

export interface ReadOnlyKeyValueStore<K, V> {
  get(key: K): V | undefined
  /** Keys from `from` to `to`, both inclusive, in key-bytes order; either bound may be omitted. */
  range(from?: K, to?: K): IterableIterator<KeyValue<K, V>>
  all(): IterableIterator<KeyValue<K, V>>
  approximateNumEntries(): number
}

export interface KeyValueStore<K, V> extends StateStore, ReadOnlyKeyValueStore<K, V> {
  /**
   * Added by the state stores part: registers the listener of the store's write cache. Returns
   * false when the store does not cache (the listener is never called; the caller forwards each
   * write itself, as Kafka's DSL does without caching).
   */
  setFlushListener?(listener: FlushListener<K, V> | undefined): boolean
  put(key: K, value: V): void
  /** Returns the existing value, or puts and returns undefined. */
  putIfAbsent(key: K, value: V): V | undefined
  /** Returns the old value. */
  delete(key: K): V | undefined
}

export interface WindowEntry<V> {
  readonly windowStart: number
  readonly value: V
}

export interface ReadOnlyWindowStore<K, V> {
  fetch(key: K, windowStart: number): V | undefined
  /** The key's windows with start in [fromStart, toStart], oldest first. */
  fetchRange(key: K, fromStart: number, toStart: number): IterableIterator<WindowEntry<V>>
  /** Every key's windows with start in [fromStart, toStart]. */
  fetchAll(fromStart: number, toStart: number): IterableIterator<KeyValue<Windowed<K>, V>>
  all(): IterableIterator<KeyValue<Windowed<K>, V>>
}

/** Windows of a fixed size; windows older than stream time minus retention are dropped. */
export interface WindowStore<K, V> extends StateStore, ReadOnlyWindowStore<K, V> {
  /**
   * Added by the state stores part: registers the listener of the store's write cache. Returns
   * false when the store does not cache (the listener is never called; the caller forwards each
   * write itself, as Kafka's DSL does without caching).
   */
  setFlushListener?(listener: FlushListener<Windowed<K>, V> | undefined): boolean
  readonly windowSizeMs: number
  readonly retentionMs: number
  /** null removes the window. */
  put(key: K, value: V | null, windowStart: number): void
}

export interface ReadOnlySessionStore<K, V> {
  /** The key's sessions that end at or after `earliestEnd` and start at or before `latestStart`. */
  findSessions(key: K, earliestEnd: number, latestStart: number): IterableIterator<KeyValue<Windowed<K>, V>>
  /** Every session of the key. */
  fetch(key: K): IterableIterator<KeyValue<Windowed<K>, V>>
  /**
   * Added by the windows part: every session of every key still in retention, so suppress can
   * rebuild its buffer from a restored session store. Optional: a store without it is not scanned.
   */
  all?(): IterableIterator<KeyValue<Windowed<K>, V>>
}

/** Sessions of variable length per key ([start, end] with end inclusive, as Kafka's session windows). */
export interface SessionStore<K, V> extends StateStore, ReadOnlySessionStore<K, V> {
  /**
   * Added by the state stores part: registers the listener of the store's write cache. Returns
   * false when the store does not cache (the listener is never called; the caller forwards each
   * write itself, as Kafka's DSL does without caching).
   */
  setFlushListener?(listener: FlushListener<Windowed<K>, V> | undefined): boolean
  readonly retentionMs: number
  put(session: Windowed<K>, value: V): void
  remove(session: Windowed<K>): void
}

export type StoreKind = 'key-value' | 'window' | 'session'

/** What the runtime and `describe()` need to know about a store, without building it. */
export interface StoreSpec {
  readonly name: string
  readonly kind: StoreKind
  readonly persistent: boolean
  /** Backed by the compacted changelog `<application>-<name>-changelog`. */
  readonly logging: boolean
  readonly caching: boolean
  /** Window and session stores: how long windows are kept (the changelog's retention too). */
  readonly retentionMs?: number
}

/** Builds one store instance per task (tasks never share a store). */
export interface StoreBuilder<S extends StateStore> extends StoreSpec {
  build(): S
}

export function changelogTopic(applicationId: string, storeName: string): string {
  return `${applicationId}-${storeName}-changelog`
}
