/**
 * Kafka RecordBatch v2 (magic 2) header, byte for byte (docs/kafka-facts.md §1.1):
 *
 *   0 baseOffset int64 | 8 batchLength int32 | 12 partitionLeaderEpoch int32 | 16 magic int8
 *  17 crc uint32 (CRC-32C of bytes 21..end) | 21 attributes int16 | 23 lastOffsetDelta int32
 *  27 baseTimestamp int64 | 35 maxTimestamp int64 | 43 producerId int64 | 51 producerEpoch int16
 *  53 baseSequence int32 | 57 recordCount int32 | 61 records...
 *
 * The CRC does not cover baseOffset, batchLength, partitionLeaderEpoch or magic, which is why a
 * leader can assign offsets and stamp its epoch in place without re-encoding anything. This
 * module is what brokers use on the produce, fetch and recovery paths: it reads and validates
 * headers and never looks at individual records.
 */
import {
  readBigInt64BE,
  readInt16BE,
  readInt32BE,
  readInt8,
  readUInt32BE,
  writeBigInt64BE,
  writeInt32BE,
} from '../buffer-methods.js'
import { crc32c } from '../crc32c.js'
import { SluiceError } from '../errors.js'

export const BATCH_HEADER_BYTES = 61
/** baseOffset + batchLength: the part of the header not counted by batchLength. */
export const LOG_OVERHEAD_BYTES = 12
export const CURRENT_MAGIC = 2

export const OFF_BASE_OFFSET = 0
export const OFF_BATCH_LENGTH = 8
export const OFF_PARTITION_LEADER_EPOCH = 12
export const OFF_MAGIC = 16
export const OFF_CRC = 17
export const OFF_ATTRIBUTES = 21
export const OFF_LAST_OFFSET_DELTA = 23
export const OFF_BASE_TIMESTAMP = 27
export const OFF_MAX_TIMESTAMP = 35
export const OFF_PRODUCER_ID = 43
export const OFF_PRODUCER_EPOCH = 51
export const OFF_BASE_SEQUENCE = 53
export const OFF_RECORD_COUNT = 57

export const COMPRESSION_CODEC_MASK = 0x07
export const TIMESTAMP_TYPE_MASK = 0x08
export const TRANSACTIONAL_MASK = 0x10
export const CONTROL_MASK = 0x20
export const DELETE_HORIZON_MASK = 0x40

export interface BatchHeader {
  /** Byte position of the batch inside the buffer it was read from. */
  readonly position: number
  /** Whole batch size in bytes (LOG_OVERHEAD_BYTES + batchLength). */
  readonly sizeBytes: number
  readonly baseOffset: bigint
  readonly batchLength: number
  readonly partitionLeaderEpoch: number
  readonly magic: number
  readonly crc: number
  readonly attributes: number
  readonly lastOffsetDelta: number
  readonly baseTimestamp: bigint
  readonly maxTimestamp: bigint
  readonly producerId: bigint
  readonly producerEpoch: number
  readonly baseSequence: number
  readonly recordCount: number
}

/**
 * Reads the header of the batch at `position`. Returns undefined when fewer than a header's
 * bytes remain (a short tail); it does not check magic or CRC (see validateBatchAt).
 */
export function readBatchHeader(buf: Buffer, position = 0): BatchHeader | undefined {
  if (buf.length - position < BATCH_HEADER_BYTES) return undefined
  const batchLength = readInt32BE(buf, position + OFF_BATCH_LENGTH)
  return {
    position,
    sizeBytes: LOG_OVERHEAD_BYTES + batchLength,
    baseOffset: readBigInt64BE(buf, position + OFF_BASE_OFFSET),
    batchLength,
    partitionLeaderEpoch: readInt32BE(buf, position + OFF_PARTITION_LEADER_EPOCH),
    magic: readInt8(buf, position + OFF_MAGIC),
    crc: readUInt32BE(buf, position + OFF_CRC),
    attributes: readInt16BE(buf, position + OFF_ATTRIBUTES),
    lastOffsetDelta: readInt32BE(buf, position + OFF_LAST_OFFSET_DELTA),
    baseTimestamp: readBigInt64BE(buf, position + OFF_BASE_TIMESTAMP),
    maxTimestamp: readBigInt64BE(buf, position + OFF_MAX_TIMESTAMP),
    producerId: readBigInt64BE(buf, position + OFF_PRODUCER_ID),
    producerEpoch: readInt16BE(buf, position + OFF_PRODUCER_EPOCH),
    baseSequence: readInt32BE(buf, position + OFF_BASE_SEQUENCE),
    recordCount: readInt32BE(buf, position + OFF_RECORD_COUNT),
  }
}

/** The reason a batch was rejected, or undefined if it is valid. */
export type BatchProblem =
  | { kind: 'truncated'; message: string }
  | { kind: 'bad-magic'; message: string }
  | { kind: 'bad-length'; message: string }
  | { kind: 'bad-crc'; message: string }
  | { kind: 'bad-header'; message: string }

/**
 * Checks the batch at `position` fully: enough bytes, sane length, magic 2, CRC-32C over
 * attributes..end, and header fields that agree with each other. Never reads records.
 */
export function checkBatchAt(buf: Buffer, position: number): BatchProblem | undefined {
  return (
    checkBatchFraming(buf, position) ??
    checkBatchContents(buf, position, LOG_OVERHEAD_BYTES + readInt32BE(buf, position + OFF_BATCH_LENGTH))
  )
}

/**
 * The first half of checkBatchAt: is there a whole batch at `position` (a header, a sane length,
 * magic 2, and all the bytes the length declares)? Reads the length and the magic, not the CRC.
 */
export function checkBatchFraming(buf: Buffer, position: number): BatchProblem | undefined {
  const remaining = buf.length - position
  if (remaining < BATCH_HEADER_BYTES) {
    return { kind: 'truncated', message: `only ${remaining} bytes left, a batch header needs ${BATCH_HEADER_BYTES}` }
  }
  const batchLength = readInt32BE(buf, position + OFF_BATCH_LENGTH)
  if (batchLength < BATCH_HEADER_BYTES - LOG_OVERHEAD_BYTES) {
    return { kind: 'bad-length', message: `batchLength ${batchLength} is smaller than a header` }
  }
  const magic = readInt8(buf, position + OFF_MAGIC)
  if (magic !== CURRENT_MAGIC) return { kind: 'bad-magic', message: `magic ${magic}, expected ${CURRENT_MAGIC}` }
  const size = LOG_OVERHEAD_BYTES + batchLength
  if (remaining < size) {
    return { kind: 'truncated', message: `batch declares ${size} bytes but only ${remaining} remain` }
  }
  return undefined
}

/**
 * The second half of checkBatchAt, for a batch whose framing was checked (`size` bytes at
 * `position`): the CRC-32C, and header fields that agree with each other.
 */
export function checkBatchContents(buf: Buffer, position: number, size: number): BatchProblem | undefined {
  const stored = readUInt32BE(buf, position + OFF_CRC)
  const actual = crc32c(buf.subarray(position + OFF_ATTRIBUTES, position + size))
  if (stored !== actual) {
    return {
      kind: 'bad-crc',
      message: `CRC-32C mismatch: stored ${stored.toString(16)}, computed ${actual.toString(16)}`,
    }
  }
  const recordCount = readInt32BE(buf, position + OFF_RECORD_COUNT)
  const lastOffsetDelta = readInt32BE(buf, position + OFF_LAST_OFFSET_DELTA)
  if (recordCount < 0 || lastOffsetDelta < 0 || (recordCount > 0 && lastOffsetDelta < recordCount - 1)) {
    return { kind: 'bad-header', message: `recordCount ${recordCount} and lastOffsetDelta ${lastOffsetDelta} disagree` }
  }
  const attributes = readInt16BE(buf, position + OFF_ATTRIBUTES)
  if ((attributes & COMPRESSION_CODEC_MASK) > 4) {
    return { kind: 'bad-header', message: `unknown compression codec ${attributes & COMPRESSION_CODEC_MASK}` }
  }
  return undefined
}

/** Throws the typed error for a batch problem (CORRUPT_MESSAGE for CRC, INVALID_BATCH otherwise). */
export function batchProblemError(problem: BatchProblem): SluiceError {
  return problem.kind === 'bad-crc'
    ? new SluiceError('CORRUPT_MESSAGE', problem.message)
    : new SluiceError(
        problem.kind === 'bad-magic' || problem.kind === 'truncated' ? 'CORRUPT_MESSAGE' : 'INVALID_BATCH',
        problem.message,
      )
}

export interface BatchSpan {
  readonly position: number
  readonly sizeBytes: number
  readonly recordCount: number
  readonly lastOffsetDelta: number
  readonly maxTimestamp: bigint
  readonly baseTimestamp: bigint
  readonly partitionLeaderEpoch: number
  readonly producerId: bigint
  readonly producerEpoch: number
  readonly baseSequence: number
  readonly attributes: number
}

/**
 * Validates every batch in `buf` (one or more batches back to back, as in a produce request)
 * and returns their spans. Throws CORRUPT_MESSAGE / INVALID_BATCH on the first bad one; the
 * caller then appends nothing.
 */
export function validateBatches(buf: Buffer): BatchSpan[] {
  const spans: BatchSpan[] = []
  let position = 0
  if (buf.length === 0) throw new SluiceError('INVALID_BATCH', 'no record batch in the request')
  while (position < buf.length) {
    const problem = checkBatchAt(buf, position)
    if (problem !== undefined) throw batchProblemError(problem)
    const h = readBatchHeader(buf, position)!
    spans.push({
      position,
      sizeBytes: h.sizeBytes,
      recordCount: h.recordCount,
      lastOffsetDelta: h.lastOffsetDelta,
      maxTimestamp: h.maxTimestamp,
      baseTimestamp: h.baseTimestamp,
      partitionLeaderEpoch: h.partitionLeaderEpoch,
      producerId: h.producerId,
      producerEpoch: h.producerEpoch,
      baseSequence: h.baseSequence,
      attributes: h.attributes,
    })
    position += h.sizeBytes
  }
  return spans
}

/** Writes the offset and leader epoch into a batch in place (not covered by the CRC). */
export function stampBatch(buf: Buffer, position: number, baseOffset: bigint, leaderEpoch: number): void {
  writeBigInt64BE(buf, baseOffset, position + OFF_BASE_OFFSET)
  writeInt32BE(buf, leaderEpoch, position + OFF_PARTITION_LEADER_EPOCH)
}
