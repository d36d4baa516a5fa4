/**
 * The contract between a built topology (what the DSL and the processor API produce) and the
 * runtime that runs it over a Sluice cluster or the test driver (no broker, virtual time).
 * Both sides depend on this file only, so the runtime never reaches into operators and the
 * operators never see a Producer or Consumer.
 */
import type { TaskId } from '../api/task-id.js'
import type { RecordMetadata, StreamHeader } from '../api/record.js'
import type { StateStore, StoreSpec } from '../state/store-types.js'

/** An input record as it came from a topic, before the source node's serdes. */
export interface SourceRecord {
  readonly topic: string
  readonly partition: number
  readonly offset: bigint
  readonly key: Buffer | null
  readonly value: Buffer | null
  /** The record's own timestamp (ms); the source's timestamp extractor may replace it. */
  readonly timestamp: number
  readonly headers: readonly StreamHeader[]
}

/** An output record (to(), repartition, changelog), already serialized. */
export interface SinkRecord {
  readonly topic: string
  /** Absent: the producer's default partitioner (murmur2 of the key, as Kafka). */
  readonly partition?: number
  readonly key: Buffer | null
  readonly value: Buffer | null
  readonly timestamp: number
  readonly headers: readonly StreamHeader[]
  /**
   * Added for repartition stamps (runtime/repartition-stamp.ts): the input record whose
   * processing wrote this one; absent for writes of punctuations and of cache flushes at a
   * commit (no input record is being processed then).
   */
  readonly source?: RecordMetadata
}

/** The runtime's producer as a task sees it: writes are queued; the runtime flushes before a commit. */
export interface RecordSender {
  send(record: SinkRecord): void
}

export interface SubtopologyPlan {
  readonly id: number
  /** Full topic names read by this sub-topology (user topics and `<app>-<name>-repartition`). */
  readonly sourceTopics: readonly string[]
  /** Full topic names written (user topics and repartition topics; changelogs are not listed). */
  readonly sinkTopics: readonly string[]
  readonly stores: readonly StoreSpec[]
  /** Groups of source topics that must have the same partition count (joins, co-grouped stores). */
  readonly copartitionGroups: readonly (readonly string[])[]
}

export interface InternalTopicPlan {
  /** Full name: `<app>-<name>-repartition` or `<app>-<store>-changelog`. */
  readonly name: string
  readonly kind: 'repartition' | 'changelog'
  /** Partitions: given by the user (repartition), else the count of the sub-topology's inputs. */
  readonly partitions?: number
  /** The sub-topology whose input partition count decides `partitions` when it is absent. */
  readonly partitionsLike?: number
  /** Topic configs (changelogs: cleanup.policy=compact, or compact,delete for windows). */
  readonly configs: Readonly<Record<string, string>>
}

/** A globalTable: every instance reads every partition of `topic` into `store`. */
export interface GlobalStorePlan {
  readonly topic: string
  readonly store: StoreSpec
}

export interface TaskMetrics {
  processed: number
  /** Records later than their window's grace period (counted, not processed). */
  droppedLate: number
  /** Records out of order but inside the grace period (processed). */
  outOfOrder: number
  /** Records the deserialization-error policy skipped. */
  skipped: number
  /**
   * Added by the joins part: records an operator could not use and dropped (a join's record
   * without a key or without a value, as Kafka's dropped-records metric). Absent counts as 0.
   */
  droppedInvalid?: number
  /**
   * Added by the runtime: stamped repartition records skipped because their position was
   * applied already (a re-run upstream wrote them again; runtime/applied-positions.ts).
   */
  duplicatesSkipped?: number
}

export interface TaskDeps {
  readonly applicationId: string
  /** This task's own directory (stores put their files under it). */
  readonly stateDir: string
  readonly sender: RecordSender
  /** Wall clock (the test driver's virtual clock in tests). */
  readonly clock: () => number
  /** Partition count of an output topic (for explicit partitioning); undefined if unknown. */
  partitionsOf(topic: string): number | undefined
  /**
   * Added by the DSL part: what a task does with a source record its serdes cannot read
   * (StreamsError 'SERDE'). 'fail' (the default, as Kafka's) throws it out of process();
   * 'skip' drops the record and counts it in `metrics.skipped`.
   */
  readonly onDeserializationError?: 'fail' | 'skip'
  /**
   * Added by the joins part: this instance's global store of that name (globalTable), for the
   * processors connected to it (a stream-globalTable join); undefined if there is none yet.
   */
  globalStore?(name: string): StateStore | undefined
}

export interface StreamTask {
  readonly id: TaskId
  /** By store name; the runtime restores these from their changelogs before processing. */
  readonly stores: ReadonlyMap<string, StateStore>
  readonly metrics: TaskMetrics
  /** Largest record timestamp seen (-1 before the first). */
  readonly streamTimeMs: number
  /**
   * Added for restarts (optional): carries on from the stream time the last commit recorded, so
   * windows closed before a crash stay closed. Called after restore, before the first record;
   * a time at or below the task's own changes nothing.
   */
  resumeStreamTime?(ms: number): void
  /** Opens the stores (init) and the processors; call once, before restore. */
  init(): void
  /** Runs the record through the sub-topology (stream-time punctuations fire inside). */
  process(record: SourceRecord): void
  /** Runs the wall-clock punctuations due at `nowMs`. */
  punctuateWallClock(nowMs: number): void
  /**
   * Added for the runtime (optional, so tasks built before it still fit): the earliest wall-clock
   * time (ms) a punctuation is due, undefined when none is scheduled. The runtime arms one timer
   * for it instead of polling; a task without it is punctuated about every 100 ms.
   */
  nextWallClockPunctuationMs?(): number | undefined
  /** Flushes caches (their writes reach the changelogs and downstream) and the stores. */
  flush(): void
  close(): void
}

/** What the runtime runs: the topology with internal topic names resolved for one application. */
export interface TopologyPlan {
  readonly applicationId: string
  readonly subtopologies: readonly SubtopologyPlan[]
  readonly internalTopics: readonly InternalTopicPlan[]
  readonly globalStores: readonly GlobalStorePlan[]
  createTask(id: TaskId, deps: TaskDeps): StreamTask
  /** Builds a globalTable's store (one per instance); the runtime restores and updates it. */
  createGlobalStore(topic: string): StateStore
}
