/**
 * The record codec's public types (docs/internal-apis.md, "Record codec"). Keys, values and header
 * values are raw bytes; header keys are UTF-8 strings and never null, as in Kafka.
 */
import type { BatchHeader } from './batch-header.js'

export type CompressionType = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd'

export interface RecordHeader {
  key: string
  value: Buffer | null
}

/** What a producer hands to the encoder. */
export interface RecordInput {
  key?: Buffer | null
  value: Buffer | null
  headers?: RecordHeader[]
  /** Milliseconds; defaults to the batch's baseTimestamp. */
  timestamp?: bigint
}

export interface EncodeBatchOptions {
  /** Default 'none'. */
  compression?: CompressionType
  /** Default 0n (the leader overwrites it). */
  baseOffset?: bigint
  /** Default -1. */
  partitionLeaderEpoch?: number
  /** Default: the first record's timestamp, or Date.now(). */
  baseTimestamp?: bigint
  /** Default -1n (not idempotent). */
  producerId?: bigint
  /** Default -1. */
  producerEpoch?: number
  /** Default -1. */
  baseSequence?: number
  isTransactional?: boolean
  isControl?: boolean
  timestampType?: 'CreateTime' | 'LogAppendTime'
  /**
   * Offset delta of each record, strictly increasing from >= 0 (default 0..n-1). RecordBatch v2
   * allows gaps: the log cleaner rebuilds a batch from the records it keeps with their original
   * deltas, so the batch keeps its base offset and offsets never change.
   */
  offsetDeltas?: readonly number[]
  /** The header's lastOffsetDelta (default: the last record's delta); at least that, at most int32. */
  lastOffsetDelta?: number
}

export interface DecodedRecord {
  offset: bigint
  timestamp: bigint
  /** A view into the (decompressed) batch buffer, not a copy. */
  key: Buffer | null
  /** A view into the (decompressed) batch buffer, not a copy. */
  value: Buffer | null
  headers: RecordHeader[]
}

export interface DecodedBatch {
  header: BatchHeader
  records: DecodedRecord[]
}
