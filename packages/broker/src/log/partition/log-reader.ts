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

/**
 * The I/O a read needs, one step at a time: readBatchesPlan yields each step and is resumed with
 * its result, so the same walk runs on promises (readBatches) or synchronously over the tail of
 * the active segment (readBatchesSync), with one copy of the logic.
 */
type ReadStep =
  | { readonly kind: 'seek'; readonly seg: Segment; readonly offset: bigint; readonly limit: number }
  | { readonly kind: 'read'; readonly seg: Segment; readonly position: number; readonly length: number }
type SeekAnswer = Awaited<ReturnType<Segment['seek']>>

export async function readBatches(
  segments: readonly Segment[],
  offset: bigint,
  maxBytes: number,
  options: ReadOptions,
): Promise<ReadResult> {
  const plan = readBatchesPlan(segments, offset, maxBytes, options)
  let step = plan.next()
  while (step.done !== true) {
    const s = step.value
    step = plan.next(
      s.kind === 'seek' ? await s.seg.seek(s.offset, s.limit) : await s.seg.readLog(s.position, s.length),
    )
  }
  return step.value
}

/**
 * readBatches without a promise, when every step is answered from memory or the active
 * segment's tail with its handle open (what followers and caught-up consumers ask for);
 * undefined as soon as one is not (the caller then reads with readBatches; nothing was changed).
 * A read in the active segment's recent batches first tries readRecentSync, which needs no plan.
 */
export function readBatchesSync(
  segments: readonly Segment[],
  offset: bigint,
  maxBytes: number,
  options: ReadOptions,
): ReadResult | undefined {
  const active = segments[segments.length - 1]!
  if (offset >= active.baseOffset) {
    const recent = readRecentSync(active, offset, maxBytes, options)
    if (recent !== undefined) return recent
  }
  const plan = readBatchesPlan(segments, offset, maxBytes, options)
  let step = plan.next()
  while (step.done !== true) {
    const s = step.value
    const answer = s.kind === 'seek' ? s.seg.seekRecent(s.offset, s.limit) : s.seg.readTailSync(s.position, s.length)
    if (answer === undefined) return undefined
    step = plan.next(answer)
  }
  return step.value
}

const NO_RECORDS = Buffer.alloc(0)

/**
 * A read in the active segment answered from its recent-batch list (recent-batches.ts: where
 * each of the last batches is, its size and offsets) and the tail's bytes: no batch header is
 * parsed, no step is planned. What followers and caught-up consumers ask for. Undefined when the
 * list does not hold the batch the read starts at, or the bytes are not at hand.
 */
function readRecentSync(seg: Segment, offset: bigint, maxBytes: number, options: ReadOptions): ReadResult | undefined {
  const recent = seg.active?.recent
  if (recent === undefined) return undefined
  const { maxOffset, minOneBatch = false } = options
  const relMax = maxOffset === undefined ? Number.POSITIVE_INFINITY : Number(maxOffset - seg.baseOffset)
  const span = recent.span(Number(offset - seg.baseOffset), seg.sizeBytes, maxBytes, relMax, minOneBatch)
  if (span === undefined) return undefined
  if (span === 'end' || span.bytes === 0) return { records: NO_RECORDS, firstOffset: offset }
  const records = seg.readTailSync(span.position, span.bytes)
  if (records === undefined || records.length !== span.bytes) return undefined
  return { records, firstOffset: seg.baseOffset + BigInt(span.relBase) }
}

function* readBatchesPlan(
  segments: readonly Segment[],
  offset: bigint,
  maxBytes: number,
  options: ReadOptions,
): Generator<ReadStep, ReadResult, SeekAnswer | Buffer> {
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
      const found = (yield { kind: 'seek', seg, offset, limit }) as SeekAnswer
      pos = found.position
      firstHeaderSize = found.header?.sizeBytes
    }
    while (pos < limit && !done) {
      let want = maxBytes - total
      if (total === 0 && minOneBatch) {
        firstHeaderSize ??= batchSizeFrom(
          (yield { kind: 'read', seg, position: pos, length: BATCH_HEADER_BYTES }) as Buffer,
          seg,
          pos,
        )
        want = Math.max(want, firstHeaderSize)
      }
      if (want < BATCH_HEADER_BYTES) break
      const chunk = (yield { kind: 'read', seg, position: pos, length: Math.min(want, limit - pos) }) as Buffer
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
