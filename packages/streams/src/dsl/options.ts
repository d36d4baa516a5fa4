/**
 * The options of the DSL's operators (Kafka's Consumed, Produced, Repartitioned, Grouped and
 * Materialized, as plain objects). Every store and repartition name is given by the user and
 * required where the operator makes one (docs/streams.md §2).
 *
 * Serdes are optional where the stream still knows them (from its source, or from the last
 * operator that set them); an operator that needs a serde the stream lost (after map, say)
 * throws StreamsError 'TOPOLOGY' asking for it.
 */
import type { Serde } from '../api/serde.js'
import type { StreamPartitioner, TimestampExtractor } from '../topology/node-defs.js'

export interface ConsumedOptions<K, V> {
  readonly keySerde: Serde<K>
  readonly valueSerde: Serde<V>
  /** Event time of each record; default: the record's own timestamp. */
  readonly timestampExtractor?: TimestampExtractor<K, V>
}

export interface ProducedOptions<K, V> {
  readonly keySerde?: Serde<K>
  readonly valueSerde?: Serde<V>
  /** Default: the producer's partitioner (murmur2 of the key bytes, as Kafka). */
  readonly partitioner?: StreamPartitioner<K, V>
}

export interface RepartitionOptions<K, V> {
  /** Required: the topic is `<application>-<name>-repartition`. */
  readonly name: string
  /** Default: the partition count of the sub-topology that writes it. */
  readonly partitions?: number
  readonly keySerde?: Serde<K>
  readonly valueSerde?: Serde<V>
}

export interface GroupedOptions<K, V> {
  /**
   * The repartition name, required when the key changed before the grouping (groupBy always
   * changes it): the topic is `<application>-<name>-repartition`.
   */
  readonly name?: string
  readonly keySerde?: Serde<K>
  readonly valueSerde?: Serde<V>
}

/** Where a table or an aggregation keeps its state: a key-value store named by the user. */
export interface MaterializedOptions {
  /** Required: the store name (its changelog is `<application>-<name>-changelog`). */
  readonly name: string
  /** On disk (lmdb) instead of in memory; default false (the changelog restores it either way). */
  readonly persistent?: boolean
  /** Back the store with its changelog; default true. */
  readonly logging?: boolean
  /** A write cache that forwards the newest value per key on commit; default true. */
  readonly caching?: boolean
}

export interface MaterializedWithValueSerde<V> extends MaterializedOptions {
  readonly valueSerde?: Serde<V>
}

/**
 * Added by the windows part: a windowed aggregation's store (a window or session store named by
 * the user). `retentionMs` keeps windows longer than they can change (default: size + grace;
 * sliding difference + grace; sessions gap + grace), for interactive queries.
 */
export interface WindowedMaterializedOptions extends MaterializedOptions {
  readonly retentionMs?: number
}

export interface TableOptions<K, V> extends ConsumedOptions<K, V>, MaterializedOptions {}

export interface GlobalTableOptions<K, V> {
  /** Required: the store name (a global store has no changelog: its topic restores it). */
  readonly name: string
  readonly keySerde: Serde<K>
  readonly valueSerde: Serde<V>
  readonly persistent?: boolean
}
