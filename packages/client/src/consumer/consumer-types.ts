/** Public types of the consumer (no groups: the application assigns partitions itself). */
import type { RecordHeader } from '@sluice/protocol'

export interface TopicPartition {
  topic: string
  partition: number
}

/**
 * Where to move: an exact offset, the log start ('beginning'), the high watermark ('end'), or
 * the first offset whose timestamp is >= the given one (the end when there is none).
 */
export type SeekOffset = bigint | 'beginning' | 'end' | { timestamp: number | bigint }

/**
 * One record as the consumer hands it out. The consumer's messages are views of the fetched bytes
 * (fetched-message.ts): key, value and headers are decoded when first read and then kept, offset
 * and timestamp are made exact bigints when read. So the fields are read-only getters: read them
 * by name; `{ ...message }` and Object.keys() do not list them. Key, value and header values are
 * views of the fetched bytes (copy one to keep it apart from the rest of its response).
 */
export interface ConsumerMessage {
  readonly topic: string
  readonly partition: number
  readonly offset: bigint
  readonly timestamp: bigint
  readonly key: Buffer | null
  readonly value: Buffer | null
  readonly headers: RecordHeader[]
}

export interface ConsumerBatch {
  topic: string
  partition: number
  /**
   * In offset order, all of one partition: the records of up to about 256 KiB of record batches
   * (at least one batch), so a fetch response of one partition may come as several batches.
   */
  messages: ConsumerMessage[]
  /** The partition's high watermark when the batch was fetched. */
  highWatermark: bigint
}

export interface ConsumerOptions {
  /** How long a fetch waits on the broker for minBytes to arrive. Default 500 ms. */
  maxWaitMs?: number
  /** Default 1. */
  minBytes?: number
  /** Limit of one fetch response (at least one batch is always returned). Default 50 MiB. */
  maxBytes?: number
  /** Limit per partition in one fetch response. Default 1 MiB. */
  maxPartitionBytes?: number
  /**
   * Prefetch bound: bytes fetched and not yet handed to the application, plus the size limits of
   * fetches in flight, across all partitions. The consumer fetches ahead (the next long poll
   * runs while the application processes) until this is reached; it may be exceeded by one
   * record batch, since a fetch always returns at least one. What paused partitions hold is not
   * counted, so pausing one never stops the others. Default: maxBytes.
   */
  maxBufferedBytes?: number
  /** Default 'read_uncommitted'. */
  isolationLevel?: 'read_uncommitted' | 'read_committed'
  /**
   * What to do when the position is outside the log (OFFSET_OUT_OF_RANGE): 'none' (default)
   * surfaces the typed error to the application, 'earliest'/'latest' move to the log start/end.
   * It also picks where a newly assigned partition starts: 'earliest' at the log start,
   * otherwise at the end (Kafka's auto.offset.reset=latest).
   */
  offsetReset?: 'earliest' | 'latest' | 'none'
}

export interface EachMessagePayload {
  message: ConsumerMessage
  topic: string
  partition: number
}
export interface EachBatchPayload {
  batch: ConsumerBatch
}

export interface RunOptions {
  eachMessage?: (payload: EachMessagePayload) => Promise<void> | void
  eachBatch?: (payload: EachBatchPayload) => Promise<void> | void
}

export interface RunHandle {
  /** Stops after the callback in progress returns; resolves when stopped. */
  stop(): Promise<void>
  /** Resolves when the run ends by stop() or close(); rejects with the error that ended it. */
  readonly done: Promise<void>
}

export interface Consumer extends AsyncIterable<ConsumerMessage> {
  /**
   * Replaces the assignment. An item without `partition` means every partition of the topic.
   * Newly assigned partitions start at the end (or the beginning with offsetReset 'earliest');
   * resolves once those start positions are known. Partitions kept keep their position. Rejects
   * with UNKNOWN_TOPIC_OR_PARTITION (after retries) for a topic or partition that does not exist.
   */
  assign(items: Array<{ topic: string; partition?: number }>): Promise<TopicPartition[]>
  /** The current assignment. */
  assignment(): TopicPartition[]
  /**
   * Moves an assigned partition. Takes effect for the next fetch: messages buffered or on the
   * way for the old position are dropped. 'beginning', 'end' and timestamps are resolved with
   * ListOffsets in the background; `position()` waits for that.
   */
  seek(target: TopicPartition & { offset: SeekOffset }): void
  /** Stops delivering (and fetching) these partitions until resume(). */
  pause(tps: TopicPartition[]): void
  resume(tps: TopicPartition[]): void
  /** The next offset to be delivered for the partition (waits for a pending seek to resolve). */
  position(tp: TopicPartition): Promise<bigint>
  /**
   * Messages in offset order per partition, interleaved across partitions. Ends when the
   * consumer closes; throws (and ends) on an error that needs the application, such as
   * OFFSET_OUT_OF_RANGE with offsetReset 'none'. One iterator or run() at a time.
   */
  messages(options?: { signal?: AbortSignal }): AsyncIterableIterator<ConsumerMessage>
  /** Callback style: eachBatch if given, else eachMessage. A callback that throws ends the run. */
  run(options: RunOptions): RunHandle
  /** Stops fetching, ends iterators and runs, closes the streams. */
  close(): Promise<void>
}
