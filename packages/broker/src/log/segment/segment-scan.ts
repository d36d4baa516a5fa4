/**
 * Recovery scan of one segment (docs/kafka-facts.md §2.6, Kafka `LogSegment.recover`): reads the .log
 * front to back in 1 MiB chunks and accepts batches while each one
 *   - is whole (not cut by the end of the file) and passes checkBatchAt (length, magic, CRC-32C,
 *     header consistency),
 *   - starts right after the previous batch's last offset (the first at the segment base), or,
 *     in a log that may have gaps (compaction removes records and keeps offsets; see
 *     OFFSET_GAPS_MARKER_FILE), anywhere after it. The 8 offset bytes are outside the CRC, so this ordering, the next segment's base
 *     as an upper bound (`endOffset`) and the int32 relative-offset limit are what catch their
 *     corruption,
 *   - keeps its offsets relative to the segment base within int32.
 * It stops at the first batch that fails and reports where and why; the caller truncates there.
 * Offset and time indexes are rebuilt from the accepted batches with the append-time rule.
 */
import {
  BATCH_HEADER_BYTES,
  checkBatchAt,
  LOG_OVERHEAD_BYTES,
  OFF_BATCH_LENGTH,
  readBatchHeader,
} from '@sluice/protocol'
import type { FileHandleCache } from '../io/file-handle-cache.js'
import { readAt, writeFully } from '../io/file-io.js'
import { freshIndexCursor, indexBatch, PendingIndexEntries, type IndexCursor } from './index-cursor.js'
import type { SegmentPaths } from './log-files.js'
import { OffsetIndexEntries } from './offset-index.js'
import { TimeIndexEntries } from './time-index.js'

const CHUNK_BYTES = 1024 * 1024
const MAX_RELATIVE_OFFSET = 0x7fffffffn

export interface ScanOutcome {
  /** Bytes of valid batches from the start of the file. */
  validBytes: number
  /** Offset after the last valid batch (the segment base if there is none). */
  nextOffset: bigint
  batches: number
  firstBatchMaxTimestamp: bigint | undefined
  offsetIndex: OffsetIndexEntries
  timeIndex: TimeIndexEntries
  cursor: IndexCursor
  /** Why scanning stopped before the end of the file; undefined when the whole file is valid. */
  problem: { position: number; reason: string } | undefined
}

export interface ScanOptions {
  indexIntervalBytes: number
  /** Exclusive bound on offsets (the next segment's base offset), when there is a next segment. */
  endOffset?: bigint | undefined
  /** False for a log that never had offset gaps (no OFFSET_GAPS_MARKER_FILE): batches must be contiguous. */
  allowGaps?: boolean
  /** Called for each accepted batch in order (leader-epoch replay). */
  onBatch?: (partitionLeaderEpoch: number, baseOffset: bigint) => void
}

export async function scanSegment(
  cache: FileHandleCache,
  paths: SegmentPaths,
  baseOffset: bigint,
  fileSizeBytes: number,
  options: ScanOptions,
): Promise<ScanOutcome> {
  const pending = new PendingIndexEntries()
  const cursor = freshIndexCursor(baseOffset)
  const out: ScanOutcome = {
    validBytes: 0,
    nextOffset: baseOffset,
    batches: 0,
    firstBatchMaxTimestamp: undefined,
    offsetIndex: new OffsetIndexEntries(),
    timeIndex: new TimeIndexEntries(),
    cursor,
    problem: undefined,
  }
  await cache.use(paths.log, async (fh) => {
    let chunk: Buffer = Buffer.alloc(0)
    let chunkStart = 0
    const ensure = async (pos: number, len: number): Promise<void> => {
      if (pos >= chunkStart && pos + len <= chunkStart + chunk.length) return
      chunk = await readAt(fh, pos, Math.min(Math.max(CHUNK_BYTES, len), fileSizeBytes - pos))
      chunkStart = pos
    }
    let pos = 0
    while (pos < fileSizeBytes) {
      const remaining = fileSizeBytes - pos
      if (remaining < BATCH_HEADER_BYTES) {
        out.problem = { position: pos, reason: `torn tail: ${remaining} bytes, less than a batch header` }
        break
      }
      await ensure(pos, BATCH_HEADER_BYTES)
      const declared = LOG_OVERHEAD_BYTES + chunk.readInt32BE(pos - chunkStart + OFF_BATCH_LENGTH)
      if (declared > remaining) {
        out.problem = { position: pos, reason: `torn tail: batch declares ${declared} bytes, ${remaining} remain` }
        break
      }
      if (declared >= BATCH_HEADER_BYTES) await ensure(pos, declared)
      const rel = pos - chunkStart
      const bad = checkBatchAt(chunk, rel)
      if (bad !== undefined) {
        out.problem = { position: pos, reason: `${bad.kind}: ${bad.message}` }
        break
      }
      const h = readBatchHeader(chunk, rel)!
      const lastOffset = h.baseOffset + BigInt(h.lastOffsetDelta)
      if (options.allowGaps !== true && h.baseOffset !== out.nextOffset) {
        out.problem = {
          position: pos,
          reason: `batch baseOffset ${h.baseOffset} does not continue the log at ${out.nextOffset} (it has never had offset gaps)`,
        }
        break
      }
      if (h.baseOffset < out.nextOffset) {
        out.problem = {
          position: pos,
          reason: `batch baseOffset ${h.baseOffset} is below ${out.nextOffset} (offsets must increase)`,
        }
        break
      }
      if (options.endOffset !== undefined && lastOffset >= options.endOffset) {
        out.problem = {
          position: pos,
          reason: `batch lastOffset ${lastOffset} reaches the next segment's base offset ${options.endOffset}`,
        }
        break
      }
      if (lastOffset - baseOffset > MAX_RELATIVE_OFFSET) {
        out.problem = {
          position: pos,
          reason: `offset ${lastOffset} does not fit relative to segment base ${baseOffset}`,
        }
        break
      }
      indexBatch(cursor, pending, baseOffset, pos, h.sizeBytes, lastOffset, h.maxTimestamp, options.indexIntervalBytes)
      options.onBatch?.(h.partitionLeaderEpoch, h.baseOffset)
      if (out.batches === 0) out.firstBatchMaxTimestamp = h.maxTimestamp
      out.batches++
      out.nextOffset = lastOffset + 1n
      pos += h.sizeBytes
      out.validBytes = pos
    }
  })
  for (let i = 0; i < pending.offsetCount; i++) out.offsetIndex.append(pending.offsetRel[i]!, pending.offsetPos[i]!)
  for (let i = 0; i < pending.timeCount; i++) out.timeIndex.append(pending.timeTs[i]!, pending.timeRel[i]!)
  return out
}

/** Replaces a segment's index files with rebuilt entries. */
export async function writeIndexFiles(
  cache: FileHandleCache,
  paths: SegmentPaths,
  offsetIndex: OffsetIndexEntries,
  timeIndex: TimeIndexEntries,
): Promise<void> {
  for (const [file, buf] of [
    [paths.index, offsetIndex.toBuffer()],
    [paths.timeIndex, timeIndex.toBuffer()],
  ] as const) {
    await cache.use(
      file,
      async (fh) => {
        await writeFully(fh, buf, 0, buf.length, 0)
        await fh.truncate(buf.length)
      },
      { create: true },
    )
  }
}
