/** Public types of the group consumer (Kafka's subscribe() model: the group assigns partitions). */
import type { AssignorName } from '../assignors/assignor-types.js'
import type { CustomAssignor } from '../assignors/custom-assignor.js'
import type {
  ConsumerMessage,
  ConsumerOptions,
  RunHandle,
  RunOptions,
  SeekOffset,
  TopicPartition,
} from '../consumer-types.js'

/**
 * Called around rebalances, on the delivery side: never while a message or batch of the
 * consumer is being processed (as Kafka runs them inside poll()). Commit in
 * onPartitionsRevoked to keep exactly what was processed; with autoCommit the consumer has
 * already committed the revoked partitions' positions when it is called.
 */
export interface RebalanceListener {
  onPartitionsRevoked?(partitions: TopicPartition[]): Promise<void> | void
  onPartitionsAssigned?(partitions: TopicPartition[]): Promise<void> | void
  /**
   * The member lost its generation (session expired, fenced, max poll interval exceeded): the
   * partitions may already belong to someone else, so nothing is committed. Default:
   * onPartitionsRevoked.
   */
  onPartitionsLost?(partitions: TopicPartition[]): Promise<void> | void
}

export interface GroupConsumerOptions extends Omit<ConsumerOptions, 'offsetReset'> {
  groupId: string
  /** Static membership (KIP-345): a restart within the session timeout keeps the assignment. */
  groupInstanceId?: string
  /** Without heartbeats for this long the coordinator removes the member. Default 45000 ms. */
  sessionTimeoutMs?: number
  /** Default 3000 ms (keep it below a third of the session timeout). */
  heartbeatIntervalMs?: number
  /**
   * Longest time the application may spend between polls (processing one message or batch,
   * retries included); past it the member leaves the group and rejoins on its next poll. Also
   * the rebalance timeout. Default 300000 ms.
   */
  maxPollIntervalMs?: number
  /**
   * In order of preference: built-in assignors by name, or custom assignor objects (their
   * subscription and assignment userData reach the leader and the members). Default
   * ['cooperative-sticky', 'range'].
   */
  assignors?: (AssignorName | CustomAssignor)[]
  /** Commit processed positions every autoCommitIntervalMs, on revocation and on close. Default true. */
  autoCommit?: boolean
  /** Default 5000 ms. */
  autoCommitIntervalMs?: number
  /**
   * Where a partition without a committed offset (or with one outside the log) starts:
   * 'earliest', 'latest' (default, as Kafka), or 'none' (a typed OFFSET_OUT_OF_RANGE error
   * with details.noCommittedOffset).
   */
  autoOffsetReset?: 'earliest' | 'latest' | 'none'
  rebalanceListener?: RebalanceListener
  /** How often a pattern subscription is re-resolved, and the leader checks partition counts. Default 300000 ms. */
  metadataMaxAgeMs?: number
}

/** A position to commit: `offset` is the next offset to read (last processed + 1). */
export interface CommitOffset extends TopicPartition {
  offset: bigint
  metadata?: string
}

export interface RetryPolicy {
  /** Attempts in total (1 = no retry). */
  attempts: number
  /** Wait between attempts. */
  backoffMs: number
}

export interface GroupRunOptions extends RunOptions {
  /** Retries a failing eachMessage / eachBatch call. Default: one attempt. */
  retry?: RetryPolicy
  /**
   * eachMessage only: after the last failed attempt the record is produced (acks all) to this
   * topic with its key, value and headers plus sluice.dlq.source.topic / .partition / .offset /
   * .error / .attempts, and consumption moves on; its offset counts as processed only once the
   * dead-letter write is acknowledged. Without it the error ends the run (run().done rejects)
   * and the record is delivered again by the next run() (or to the partition's next owner).
   */
  deadLetterTopic?: string
}

export interface GroupMetadata {
  groupId: string
  groupInstanceId?: string
  /** '' until the first JoinGroup answers. */
  memberId: string
  /** -1 when not in a generation. */
  generationId: number
}

export interface GroupConsumer extends AsyncIterable<ConsumerMessage> {
  /**
   * Sets the subscription: a topic list, or a RegExp matched against whole topic names (as
   * Kafka does), re-resolved every metadataMaxAgeMs. The group is joined when delivery starts
   * (run() or the iterator); a later call rebalances.
   */
  subscribe(subscription: { topics: string[] | RegExp }): void
  /** The topics currently subscribed (a pattern's matches). */
  subscription(): string[]
  /** The partitions the group currently gives this member. */
  assignment(): TopicPartition[]
  groupMetadata(): GroupMetadata
  /** As Consumer.seek, for an assigned partition; the next commit stores the new position. */
  seek(target: TopicPartition & { offset: SeekOffset }): void
  pause(tps: TopicPartition[]): void
  resume(tps: TopicPartition[]): void
  position(tp: TopicPartition): Promise<bigint>
  /**
   * Committed offsets of the group (-1n when none) for these partitions, default the assignment,
   * each with the metadata string it was committed with (absent when empty).
   */
  committed(tps?: TopicPartition[]): Promise<CommitOffset[]>
  /**
   * Commits processed positions (default: every assigned partition's), retrying retriable
   * errors. Rejects with ILLEGAL_GENERATION / UNKNOWN_MEMBER_ID / REBALANCE_IN_PROGRESS when the
   * member is no longer in the generation (its partitions may have moved; a rejoin follows).
   */
  commit(offsets?: CommitOffset[]): Promise<void>
  /** As commit() without retries; failures are logged, and reject the returned promise. */
  commitAsync(offsets?: CommitOffset[]): Promise<void>
  /**
   * Messages of the assigned partitions. A message counts as processed (for commits) once the
   * loop asks for the next one, or leaves the loop. One iterator or run() at a time.
   */
  messages(options?: { signal?: AbortSignal }): AsyncIterableIterator<ConsumerMessage>
  run(options: GroupRunOptions): RunHandle
  /**
   * Asks for a rebalance (Kafka's enforceRebalance): the member rejoins at its next safe point,
   * so a custom assignor's subscriptionUserData() and assign() run again. For applications whose
   * own state changed what the assignment should be (a Connect worker that stopped a task).
   */
  enforceRebalance(reason?: string): void
  /** Commits (with autoCommit), revokes, leaves the group (dynamic members), closes the streams. */
  close(): Promise<void>
}
