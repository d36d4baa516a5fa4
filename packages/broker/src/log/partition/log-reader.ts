/**
 * Read paths of a partition log over a snapshot of its segment list. Reads only whole batches
 * and only bytes below each segment's committed size, so they never see a partial append; they
 * parse batch headers (never records) to cut at batch, maxBytes and maxOffset boundaries.
 *   - readBatches: batches from the one holding `offset`, across segments, total <= maxBytes,
 *     except that with minOneBatch the first batch is returned whole even if larger (KIP-74);
 *     stops before the first batch whose lastOffset >= maxOffset (exclusive bound, e.g. the HW).
 *   - findOffsetForTimestamp: the first batch whose maxTimestamp >= ts, using the time index.
 */
import { BATCH_HEADER_BYTES, readBatchHeader, SluiceError } from '@sluice/protocol'
import type { Segment } from '../segment/segment.js'

export interface ReadOptions {
  /** Exclusive upper bound: no batch whose lastOffset >= maxOffset is returned. */
  maxOffset?: bigint
  /** Return the first batch whole even when it is larger than maxBytes (KIP-74). */
  minOneBatch?: boolean
}

export interface ReadResult {
  records: Buffer
  firstOffset: bigint
}

/** Index of the segment holding `offset` (the last segment whose base offset is <= offset). */
export function floorSegmentIndex(segments: readonly Segment[], offset: bigint): number {
  let lo = 0
  let hi = segments.length - 1
  let found = 0
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    if (segments[mid]!.baseOffset <= offset) {
      found = mid
      lo = mid + 1
    } else {
      hi = mid - 1
    }
  }
  return found
}

export async function readBatches(
  segments: readonly Segment[],
  offset: bigint,
  maxBytes: number,
  options: ReadOptions,
): Promise<ReadResult> {
  const { maxOffset, minOneBatch = false } = options
  const chunks: Buffer[] = []
  let total = 0
  let firstOffset: bigint | undefined
  let done = false
  for (let i = floorSegmentIndex(segments, offset); i < segments.length && !done; i++) {
    const seg = segments[i]!
    const limit = seg.sizeBytes
    let pos = 0
    let firstHeaderSize: number | undefined
    if (chunks.length === 0) {
      const found = await seg.seek(offset, limit)
      pos = found.position
      firstHeaderSize = found.header?.sizeBytes
    }
    while (pos < limit && !done) {
      let want = maxBytes - total
      if (total === 0 && minOneBatch) {
        firstHeaderSize ??= batchSizeFrom(await seg.readLog(pos, BATCH_HEADER_BYTES), seg, pos)
        want = Math.max(want, firstHeaderSize)
      }
      if (want < BATCH_HEADER_BYTES) break
      const chunk = await seg.readLog(pos, Math.min(want, limit - pos))
      const cut = wholeBatchesIn(chunk, maxOffset)
      if (cut.bytes > 0) {
        chunks.push(chunk.subarray(0, cut.bytes))
        firstOffset ??= cut.firstOffset
        total += cut.bytes
        pos += cut.bytes
      }
      // Anything short of the whole chunk means maxBytes or maxOffset ended the read.
      if (cut.stopped || cut.bytes < chunk.length || cut.bytes === 0) done = true
    }
    if (pos < limit) done = true
  }
  const records = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)
  return { records, firstOffset: firstOffset ?? offset }
}

function batchSizeFrom(header: Buffer, seg: Segment, pos: number): number {
  const h = readBatchHeader(header, 0)
  if (h === undefined || h.sizeBytes < BATCH_HEADER_BYTES) {
    throw new SluiceError('KAFKA_STORAGE_ERROR', `no valid batch header at ${seg.paths.log}:${pos}`)
  }
  return h.sizeBytes
}

/** How many leading bytes of `chunk` are whole batches below maxOffset. */
function wholeBatchesIn(
  chunk: Buffer,
  maxOffset: bigint | undefined,
): { bytes: number; firstOffset: bigint | undefined; stopped: boolean } {
  let at = 0
  let firstOffset: bigint | undefined
  while (chunk.length - at >= BATCH_HEADER_BYTES) {
    const h = readBatchHeader(chunk, at)!
    if (h.sizeBytes < BATCH_HEADER_BYTES)
      throw new SluiceError('KAFKA_STORAGE_ERROR', `invalid batch length in log at ${at}`)
    if (at + h.sizeBytes > chunk.length) break
    if (maxOffset !== undefined && h.baseOffset + BigInt(h.lastOffsetDelta) >= maxOffset) {
      return { bytes: at, firstOffset, stopped: true }
    }
    firstOffset ??= h.baseOffset
    at += h.sizeBytes
  }
  return { bytes: at, firstOffset, stopped: false }
}

export async function findOffsetForTimestamp(
  segments: readonly Segment[],
  ts: bigint,
): Promise<{ offset: bigint; timestamp: bigint } | undefined> {
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!
    const isLast = i === segments.length - 1
    // The active segment's max is exact; still scan it when it says no, as a cheap safety net.
    if (!isLast && (await seg.maxTimestamp()) < ts) continue
    const rel = await seg.timeIndexLookupBefore(ts)
    const from = await seg.indexedPositionFor(rel === undefined ? seg.baseOffset : seg.baseOffset + BigInt(rel))
    const h = await seg.seekTimestamp(from, seg.sizeBytes, ts)
    if (h !== undefined) return { offset: h.baseOffset, timestamp: h.maxTimestamp }
  }
  return undefined
}
