/**
 * Recovers one segment in place: scan (segment-scan.ts), cut the .log at the last valid byte if
 * the scan stopped early, rewrite both index files and adopt the result as the segment's state
 * (it becomes active, holding its rebuilt indexes in memory; the caller finalizes it if it is not
 * the last segment). What was dropped is logged at warn with segment, position, bytes, reason.
 */
import type { Logger } from 'pino'
import type { FileHandleCache } from '../io/file-handle-cache.js'
import type { Segment } from './segment.js'
import { scanSegment, writeIndexFiles, type ScanOutcome } from './segment-scan.js'

export interface RecoveryStats {
  /** True when the data dir was loaded after a clean shutdown (no scan unless an index was bad). */
  cleanShutdown: boolean
  segmentsScanned: number
  batchesScanned: number
  indexesRebuilt: number
  bytesTruncated: number
  segmentsDeleted: number
}

export function emptyRecoveryStats(cleanShutdown: boolean): RecoveryStats {
  return {
    cleanShutdown,
    segmentsScanned: 0,
    batchesScanned: 0,
    indexesRebuilt: 0,
    bytesTruncated: 0,
    segmentsDeleted: 0,
  }
}

export interface RecoverSegmentOptions {
  cache: FileHandleCache
  logger: Logger
  indexIntervalBytes: number
  stats: RecoveryStats
  onBatch?: (partitionLeaderEpoch: number, baseOffset: bigint) => void
  /** Exclusive offset bound: the next segment's base offset, if any. */
  endOffset?: bigint | undefined
  /** Whether batches may leave offset gaps (see OFFSET_GAPS_MARKER_FILE). */
  allowGaps?: boolean
}

export async function recoverSegment(
  seg: Segment,
  fileSizeBytes: number,
  options: RecoverSegmentOptions,
): Promise<ScanOutcome> {
  const { cache, logger, stats } = options
  const outcome = await scanSegment(cache, seg.paths, seg.baseOffset, fileSizeBytes, {
    indexIntervalBytes: options.indexIntervalBytes,
    onBatch: options.onBatch,
    endOffset: options.endOffset,
    allowGaps: options.allowGaps === true,
  })
  stats.segmentsScanned++
  stats.batchesScanned += outcome.batches
  if (outcome.problem !== undefined) {
    const bytesDropped = fileSizeBytes - outcome.validBytes
    await cache.use(seg.paths.log, (fh) => fh.truncate(outcome.validBytes))
    stats.bytesTruncated += bytesDropped
    logger.warn(
      {
        segment: seg.paths.log,
        position: outcome.problem.position,
        bytesDropped,
        reason: outcome.problem.reason,
        nextOffset: outcome.nextOffset.toString(),
      },
      'dropped invalid tail of segment during recovery',
    )
  }
  await writeIndexFiles(cache, seg.paths, outcome.offsetIndex, outcome.timeIndex)
  stats.indexesRebuilt++
  seg.adoptScan(outcome)
  return outcome
}
