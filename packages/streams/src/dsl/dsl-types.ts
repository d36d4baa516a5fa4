/**
 * The DSL's types: KStream, BranchedKStream, KGroupedStream, KTable and GlobalKTable, and the
 * factory the implementations make each other through. They refer to each other (a stream
 * groups into a grouped stream, that aggregates into a table, that turns back into a stream),
 * so they are declared here together and each implementation file depends only on this one.
 *
 * Null keys and tombstone (null) values reach user functions as null, as in Kafka Streams; type
 * a stream `KStream<K | null, V | null>` where your topics carry them.
 */
import type { ProcessorSupplier } from '../api/processor.js'
import type { Serde } from '../api/serde.js'
import type { KeyValue } from '../state/store-types.js'
import type { TopicNameExtractor } from '../topology/node-defs.js'
import type { TopologyGraph } from '../topology/topology-graph.js'
import type { Windowed } from '../api/record.js'
import type { Suppressed } from '../processors/suppressed.js'
import type { SessionWindows } from '../windows/session-windows.js'
import type { SlidingWindows } from '../windows/sliding-windows.js'
import type { TimeWindows } from '../windows/time-windows.js'
import type { JoinWindows } from '../joins/join-windows.js'
import type { ValueJoiner } from '../joins/join-types.js'
import type { StreamJoined } from '../joins/stream-joined.js'
import type { GlobalKeySelector, GlobalValueJoiner } from '../joins/stream-global-table-join.js'
import type {
  GroupedOptions,
  MaterializedOptions,
  MaterializedWithValueSerde,
  ProducedOptions,
  RepartitionOptions,
  WindowedMaterializedOptions,
} from './options.js'

/**
 * An unbounded stream of records, each on its own (not an update of an earlier one).
 *
 * Joins (dsl/kstream-joins.ts): with a stream, the window stores named from StreamJoined's store
 * name and a processor on each side, in one sub-topology whose source topics form a copartition
 * group; with a table, one processor that reads the table's store (KTable.storeName); with a
 * global table, one processor connected to the instance's global store (TaskDeps.globalStore).
 */
export interface KStream<K, V> {
  filter(predicate: (key: K, value: V) => boolean): KStream<K, V>
  filterNot(predicate: (key: K, value: V) => boolean): KStream<K, V>
  /** A new key and value (the key changed: an aggregation after it repartitions). */
  map<K2, V2>(mapper: (key: K, value: V) => KeyValue<K2, V2>): KStream<K2, V2>
  mapValues<V2>(mapper: (value: V, key: K) => V2): KStream<K, V2>
  flatMap<K2, V2>(mapper: (key: K, value: V) => Iterable<KeyValue<K2, V2>>): KStream<K2, V2>
  flatMapValues<V2>(mapper: (value: V, key: K) => Iterable<V2>): KStream<K, V2>
  selectKey<K2>(selector: (key: K, value: V) => K2): KStream<K2, V>
  peek(action: (key: K, value: V) => void): KStream<K, V>
  /** A terminal operation: the action runs for each record and nothing follows. */
  foreach(action: (key: K, value: V) => void): void
  /** Branches by predicates; `name` prefixes the branches' node names in describe(). */
  split(opts?: { readonly name?: string }): BranchedKStream<K, V>
  /** One stream with the records of both, in the order they are processed. */
  merge(other: KStream<K, V>): KStream<K, V>
  /** Sends the records through `<application>-<name>-repartition`, partitioned by key. */
  repartition(opts: RepartitionOptions<K, V>): KStream<K, V>
  /** Writes the records to a topic, or to the topic a function of each record names. */
  to(topic: string | TopicNameExtractor<K, V>, opts?: ProducedOptions<K, V>): void
  /**
   * A processor of the processor API (api/processor.ts) with the stores it may use (added with
   * StreamsBuilder.addStateStore). What it forwards is a new stream whose key may have changed.
   */
  process<K2, V2>(
    supplier: ProcessorSupplier<K, V, K2, V2>,
    opts?: { readonly stores?: readonly string[] },
  ): KStream<K2, V2>
  /** Groups by the current key; after a key change this needs `{ name }` for the repartition topic. */
  groupByKey(opts?: GroupedOptions<K, V>): KGroupedStream<K, V>
  /** Groups by a new key, through the repartition topic `<application>-<name>-repartition`. */
  groupBy<K2>(
    selector: (key: K, value: V) => K2,
    opts: GroupedOptions<K2, V> & { readonly name: string },
  ): KGroupedStream<K2, V>
  /**
   * Added by the joins part (docs/streams.md, Joins). With a stream: records of both with the same
   * key at most the window's time difference apart; the stores are named from `joined`'s store name.
   */
  join<VO, VR>(
    other: KStream<K, VO>,
    joiner: ValueJoiner<K, V, VO, VR>,
    windows: JoinWindows,
    joined: StreamJoined<K, V, VO>,
  ): KStream<K, VR>
  /** With a table (materialized): each record joined with the table's row for its key, now. */
  join<VT, VR>(table: KTable<K, VT>, joiner: ValueJoiner<K, V, VT, VR>): KStream<K, VR>
  /** With a global table: each record joined with the row of the key `keySelector` computes from it. */
  join<GK, GV, VR>(
    globalTable: GlobalKTable<GK, GV>,
    keySelector: GlobalKeySelector<K, V, GK>,
    joiner: GlobalValueJoiner<K, V, GV, VR>,
  ): KStream<K, VR>
  /** As join, and a record without a match gives a result with `null` (after its window closed, for streams). */
  leftJoin<VO, VR>(
    other: KStream<K, VO>,
    joiner: ValueJoiner<K, V, VO | null, VR>,
    windows: JoinWindows,
    joined: StreamJoined<K, V, VO>,
  ): KStream<K, VR>
  leftJoin<VT, VR>(table: KTable<K, VT>, joiner: ValueJoiner<K, V, VT | null, VR>): KStream<K, VR>
  leftJoin<GK, GV, VR>(
    globalTable: GlobalKTable<GK, GV>,
    keySelector: GlobalKeySelector<K, V, GK>,
    joiner: GlobalValueJoiner<K, V, GV, VR>,
  ): KStream<K, VR>
  /** As leftJoin, for the records of either stream. */
  outerJoin<VO, VR>(
    other: KStream<K, VO>,
    joiner: ValueJoiner<K, V | null, VO | null, VR>,
    windows: JoinWindows,
    joined: StreamJoined<K, V, VO>,
  ): KStream<K, VR>
}

/** split()'s result: `.branch(predicate, { name })`, then `.defaultBranch({ name })` or `.noDefaultBranch()`. */
export interface BranchedKStream<K, V, B extends string = never> {
  /** A record goes to the first branch whose predicate it matches. */
  branch<N extends string>(
    predicate: (key: K, value: V) => boolean,
    opts: { readonly name: N },
  ): BranchedKStream<K, V, B | N>
  /** Ends the split: records that matched no branch go to this one. */
  defaultBranch<N extends string>(opts: { readonly name: N }): Record<B | N, KStream<K, V>>
  /** Ends the split: records that matched no branch are dropped. */
  noDefaultBranch(): Record<B, KStream<K, V>>
}

/**
 * A stream grouped by key, partitioned so that all records of a key reach one task. Each
 * aggregation keeps its state in a key-value store the user names.
 * `windowedBy(...)` gives the same three operations per key and window (WindowedKStream).
 */
export interface KGroupedStream<K, V> {
  /** Records per key (a number; the store writes it as int64). */
  count(opts: MaterializedOptions): KTable<K, number>
  /** Combines the values of a key; the first value is the first aggregate. */
  reduce(reducer: (aggregate: V, value: V) => V, opts: MaterializedWithValueSerde<V>): KTable<K, V>
  /** Folds the values of a key into an aggregate of another type (its serde is required). */
  aggregate<A>(
    initializer: () => A,
    aggregator: (key: K, value: V, aggregate: A) => A,
    opts: MaterializedOptions & { readonly valueSerde: Serde<A> },
  ): KTable<K, A>
  /** Added by the windows part: aggregate per key and window (docs/streams.md, Windows). */
  windowedBy(windows: TimeWindows | SlidingWindows | SessionWindows): WindowedKStream<K, V>
}

/**
 * Added by the windows part: a grouped stream with windows (Kafka's TimeWindowedKStream,
 * SessionWindowedKStream). Each aggregation keeps a window store (a session store for session
 * windows) with the name the user gives, and makes a table keyed by Windowed<K>: each update of
 * a window flows downstream, and `suppress(untilWindowCloses(...))` keeps only final results.
 */
export interface WindowedKStream<K, V> {
  count(opts: WindowedMaterializedOptions): KTable<Windowed<K>, number>
  reduce(
    reducer: (aggregate: V, value: V) => V,
    opts: WindowedMaterializedOptions & { readonly valueSerde?: Serde<V> },
  ): KTable<Windowed<K>, V>
  /** Session windows also need `merger`: how two sessions' aggregates combine when a record joins them. */
  aggregate<A>(
    initializer: () => A,
    aggregator: (key: K, value: V, aggregate: A) => A,
    opts: WindowedMaterializedOptions & {
      readonly valueSerde: Serde<A>
      readonly merger?: (key: K, older: A, newer: A) => A
    },
  ): KTable<Windowed<K>, A>
}

/**
 * A changelog stream read as a table: the newest value per key. Its updates flow downstream as
 * records (a null value deletes the key); filter and mapValues are materialized when given
 * `{ name }`. Table-table joins keep both sides' rows in stores of their own (dsl/ktable-joins.ts).
 */
export interface KTable<K, V> {
  /** The store holding this table, when it is materialized. */
  readonly storeName: string | undefined
  /** Rows that fail the predicate become deletes downstream. */
  filter(predicate: (key: K, value: V) => boolean, opts?: MaterializedOptions): KTable<K, V>
  filterNot(predicate: (key: K, value: V) => boolean, opts?: MaterializedOptions): KTable<K, V>
  mapValues<V2>(mapper: (value: V, key: K) => V2, opts?: MaterializedWithValueSerde<V2>): KTable<K, V2>
  /** The table's updates as a stream (deletes arrive as records with a null value). */
  toStream(): KStream<K, V>
  /**
   * Added by the joins part (docs/streams.md, Joins): the table of both tables' rows per key,
   * updated when either changes (a tombstone when a row of the result disappears). `opts.name`
   * names the join's two stores (`<name>-this-join-store`, `<name>-other-join-store`).
   */
  join<VO, VR>(other: KTable<K, VO>, joiner: ValueJoiner<K, V, VO, VR>, opts: MaterializedOptions): KTable<K, VR>
  leftJoin<VO, VR>(
    other: KTable<K, VO>,
    joiner: ValueJoiner<K, V, VO | null, VR>,
    opts: MaterializedOptions,
  ): KTable<K, VR>
  outerJoin<VO, VR>(
    other: KTable<K, VO>,
    joiner: ValueJoiner<K, V | null, VO | null, VR>,
    opts: MaterializedOptions,
  ): KTable<K, VR>
  /**
   * Added by the windows part: holds updates back (processors/suppressed.ts):
   * `untilWindowCloses(buffer)` on a windowed table emits each window's final result once;
   * `untilTimeLimit(ms, buffer)` emits a key's latest value after ms of stream time. `name` names
   * the node (the buffer is in memory: no store, no changelog).
   */
  suppress(suppressed: Suppressed, opts: { readonly name: string }): KTable<K, V>
}

/** Added by the windows part: what a windowed table knows of its windows (for suppress). */
export interface TableWindowing {
  readonly windows: TimeWindows | SlidingWindows | SessionWindows
  /** The aggregation's window or session store. */
  readonly resultStore: string
}

/**
 * A table every instance holds whole (all partitions of its topic) in a store the user names;
 * the runtime fills and restores it from the topic itself, so it has no changelog.
 */
export interface GlobalKTable<K, V> {
  readonly topic: string
  readonly storeName: string
  /** Phantom members keep K and V part of the type. */
  readonly keyType?: K
  readonly valueType?: V
}

/** What the implementations know of a stream besides its public face. */
export interface StreamState<K, V> {
  /** The node whose output this stream is. */
  readonly nodeName: string
  readonly keySerde: Serde<K> | undefined
  readonly valueSerde: Serde<V> | undefined
  /** True after a key change not yet followed by a repartition. */
  readonly repartitionRequired: boolean
}

export interface InternalKStream<K, V> extends KStream<K, V>, StreamState<K, V> {}

/** How the implementations make each other without importing each other (StreamsBuilder makes it). */
export interface Dsl {
  readonly graph: TopologyGraph
  stream<K, V>(state: StreamState<K, V>): InternalKStream<K, V>
  branched<K, V>(parent: InternalKStream<K, V>, prefix: string | undefined): BranchedKStream<K, V>
  grouped<K, V>(
    nodeName: string,
    keySerde: Serde<K> | undefined,
    valueSerde: Serde<V> | undefined,
  ): KGroupedStream<K, V>
  table<K, V>(
    nodeName: string,
    storeName: string | undefined,
    keySerde: Serde<K> | undefined,
    valueSerde: Serde<V> | undefined,
    /** Added by the windows part: set for tables keyed by Windowed<K>. */
    windowing?: TableWindowing,
  ): KTable<K, V>
}
