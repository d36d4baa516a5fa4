/**
 * The nodes of a topology as the builder records them: sources (read topics and deserialize),
 * processors (a ProcessorSupplier and the stores it may use) and sinks (serialize and send).
 * A task turns each into a running node (topology/task-node.ts); describe() and plan() read
 * them as they are.
 */
import type { ProcessorSupplier } from '../api/processor.js'
import type { StreamRecord } from '../api/record.js'
import type { Serde } from '../api/serde.js'
import type { TopicRef } from './topic-ref.js'

/** What a timestamp extractor sees: the deserialized record with where it came from. */
export interface ExtractorInput<K, V> extends StreamRecord<K, V> {
  readonly topic: string
  readonly partition: number
  readonly offset: bigint
}

/**
 * Event time of a record (ms). `streamTimeMs` is the task's stream time so far (-1 before the
 * first record). A negative or non-integer result makes the task skip the record (counted in
 * the task's `skipped` metric).
 */
export type TimestampExtractor<K, V> = (record: ExtractorInput<K, V>, streamTimeMs: number) => number

/** Chooses the output topic of a record (to() with a function). */
export type TopicNameExtractor<K, V> = (record: StreamRecord<K, V>) => string

/** Chooses a partition for an output record, given the topic's partition count. */
export type StreamPartitioner<K, V> = (key: K | null, value: V | null, numPartitions: number) => number

export interface SourceNodeDef {
  readonly type: 'source'
  readonly name: string
  readonly topics: readonly TopicRef[]
  readonly keySerde: Serde<unknown>
  readonly valueSerde: Serde<unknown>
  readonly timestampExtractor?: TimestampExtractor<unknown, unknown>
}

export interface ProcessorNodeDef {
  readonly type: 'processor'
  readonly name: string
  readonly parents: readonly string[]
  readonly supplier: ProcessorSupplier<unknown, unknown, unknown, unknown>
  /** Names of the stores this processor may get from its context. */
  readonly stores: readonly string[]
  /**
   * Added by the joins part: global stores (globalTable) this processor may get from its
   * context. They are the instance's, not the task's, so they never join sub-topologies.
   */
  readonly globalStores?: readonly string[]
}

export interface SinkNodeDef {
  readonly type: 'sink'
  readonly name: string
  readonly parents: readonly string[]
  readonly topic: TopicRef | TopicNameExtractor<unknown, unknown>
  readonly keySerde: Serde<unknown>
  readonly valueSerde: Serde<unknown>
  readonly partitioner?: StreamPartitioner<unknown, unknown>
}

export type NodeDef = SourceNodeDef | ProcessorNodeDef | SinkNodeDef
