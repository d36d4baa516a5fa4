/**
 * Turns the batches of one append into per-segment groups (Kafka `LogSegment.shouldRoll`, applied
 * per batch so a large follower append can span a roll). A group is a contiguous byte range of
 * the request buffer, written with one positional write. Before a batch the active segment rolls
 * if it is non-empty and
 *   1. the batch would take it past segmentBytes, or
 *   2. batch maxTimestamp − the segment's first batch maxTimestamp > segmentMs (record time; only
 *      evaluated here, on append, so idle partitions never roll and need no timer), or
 *   3. its offset or time index is full (segmentIndexBytes),
 * or, empty or not, if the batch's lastOffset would not fit in int32 relative to the base.
 */
import { SluiceError } from '@sluice/protocol'
import type { LogConfig } from '../log-config.js'
import { OFFSET_INDEX_ENTRY_BYTES } from '../segment/offset-index.js'
import { TIME_INDEX_ENTRY_BYTES } from '../segment/time-index.js'

export interface PlannedBatch {
  /** Byte position in the request buffer. */
  readonly position: number
  readonly sizeBytes: number
  readonly baseOffset: bigint
  readonly lastOffset: bigint
  readonly maxTimestamp: bigint
  readonly partitionLeaderEpoch: number
}

/** What shouldRoll needs to know about the active segment plus the batches planned into it. */
export interface SegmentFill {
  baseOffset: bigint
  sizeBytes: number
  firstBatchMaxTimestamp: bigint | undefined
  offsetIndexEntries: number
  timeIndexEntries: number
}

export function shouldRoll(fill: SegmentFill, batch: PlannedBatch, config: LogConfig): boolean {
  if (batch.lastOffset - fill.baseOffset > 0x7fffffffn) return true
  if (fill.sizeBytes === 0) return false
  if (fill.sizeBytes + batch.sizeBytes > config.segmentBytes) return true
  const first = fill.firstBatchMaxTimestamp
  if (
    first !== undefined &&
    first >= 0n &&
    batch.maxTimestamp >= 0n &&
    batch.maxTimestamp - first > BigInt(config.segmentMs)
  )
    return true
  const maxOffsetEntries = Math.max(1, Math.floor(config.segmentIndexBytes / OFFSET_INDEX_ENTRY_BYTES))
  const maxTimeEntries = Math.max(1, Math.floor(config.segmentIndexBytes / TIME_INDEX_ENTRY_BYTES))
  return fill.offsetIndexEntries >= maxOffsetEntries || fill.timeIndexEntries >= maxTimeEntries
}

/** Checks that `spans` tile `buf` exactly, in order (validateBatches output for this buffer). */
export function assertSpansTile(buf: Buffer, spans: ReadonlyArray<{ position: number; sizeBytes: number }>): void {
  let expected = 0
  for (const s of spans) {
    if (s.position !== expected || s.sizeBytes <= 0) {
      throw new SluiceError('INVALID_BATCH', `batch spans do not tile the buffer at byte ${expected}`)
    }
    expected += s.sizeBytes
  }
  if (spans.length === 0 || expected !== buf.length) {
    throw new SluiceError('INVALID_BATCH', `batch spans cover ${expected} of ${buf.length} bytes`)
  }
}

/**
 * A follower append that overlaps the log (a batch at or below an offset it already holds).
 * Gaps are legal since compaction (the leader's log has them); `reason` still says which.
 */
export class UnexpectedAppendOffsetError extends SluiceError {
  constructor(
    readonly expectedOffset: bigint,
    readonly firstOffset: bigint,
  ) {
    super(
      'INVALID_BATCH',
      `append must start at or after offset ${expectedOffset} with increasing offsets, got a batch at ${firstOffset}` +
        ` (${firstOffset < expectedOffset ? 'overlap' : 'gap'})`,
      {
        expectedOffset: expectedOffset.toString(),
        firstOffset: firstOffset.toString(),
        reason: firstOffset < expectedOffset ? 'overlap' : 'gap',
      },
    )
  }
}
