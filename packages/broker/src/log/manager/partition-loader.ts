/**
 * Loads one partition directory into segments (docs/kafka-facts.md §2.6, Kafka `LogLoader`).
 *   - Leftover `*.tmp`, `*.deleted` and `*.cleaned` files and index files without a .log are
 *     deleted. A committed cleaner output (`<base>.<end>.log.swap`) is completed first: every
 *     segment with a base offset in [base, end) is removed and the swap file becomes
 *     `<base>.log` (its indexes are rebuilt by the scan below, as they are missing).
 *   - After a clean shutdown (`recoveryPoint` undefined) files are trusted: sizes come from stat,
 *     the active segment's next offset from its last index entry plus a header scan of the tail,
 *     and only a missing or malformed index (or a tail that does not add up) is rebuilt by scanning.
 *   - After an unclean stop every segment from the one holding the recovery point onward is
 *     scanned (length, magic, CRC, increasing offsets below the next segment's base; compacted
 *     segments have gaps). At the first bad or short batch the .log
 *     is truncated to the last good byte and all later segments are deleted; indexes of scanned
 *     segments are rebuilt; leader epochs are replayed from the scanned batches.
 * Segments below the recovery point are trusted: they were fdatasynced with their indexes. The
 * active segment's index entries reach its files only at flush, roll or close (segment.ts), so
 * after an unclean stop its index files may be short: it is always at or after the segment
 * holding the recovery point, so it is always scanned and its indexes rebuilt.
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import type { Logger } from 'pino'
import type { FileHandleCache } from '../io/file-handle-cache.js'
import { LeaderEpochCache } from '../partition/leader-epoch-cache.js'
import { fsyncDir } from '../io/checkpoint-file.js'
import {
  CLEANED_SUFFIX,
  DELETED_SUFFIX,
  INDEX_SUFFIX,
  LEADER_EPOCH_CHECKPOINT_FILE,
  LOG_SUFFIX,
  OFFSET_GAPS_MARKER_FILE,
  parseSegmentFileName,
  parseSwapFileName,
  segmentPaths,
  TEMP_SUFFIX,
  TIME_INDEX_SUFFIX,
} from '../segment/log-files.js'
import { OFFSET_INDEX_ENTRY_BYTES } from '../segment/offset-index.js'
import { Segment } from '../segment/segment.js'
import { recoverSegment, type RecoveryStats } from '../segment/segment-recovery.js'
import { TIME_INDEX_ENTRY_BYTES } from '../segment/time-index.js'

export interface LoadPartitionOptions {
  dir: string
  cache: FileHandleCache
  logger: Logger
  indexIntervalBytes: number
  /** undefined after a clean shutdown; otherwise scan from the segment holding this offset. */
  recoveryPoint: bigint | undefined
  stats: RecoveryStats
}

export interface LoadedPartition {
  segments: Segment[]
  epochs: LeaderEpochCache
  recoveryPoint: bigint
  /** The log may have offset gaps (OFFSET_GAPS_MARKER_FILE exists). */
  mayHaveGaps: boolean
}

export async function loadPartitionDir(options: LoadPartitionOptions): Promise<LoadedPartition> {
  const { dir, cache, logger, stats } = options
  const { bases, names } = await listSegments(dir, logger)
  const epochs = await LeaderEpochCache.load(
    dir,
    logger,
    (fn) => cache.withSlot(fn),
    names.includes(LEADER_EPOCH_CHECKPOINT_FILE),
  )
  const epochsAtStart = epochSignature(epochs)
  const segments: Segment[] = []
  if (bases.length === 0) {
    segments.push(Segment.lazy(0n, segmentPaths(dir, 0n), cache))
    return { segments, epochs, recoveryPoint: 0n, mayHaveGaps: names.includes(OFFSET_GAPS_MARKER_FILE) }
  }
  const rp = options.recoveryPoint
  let scanFrom = bases.length
  if (rp !== undefined) {
    scanFrom = 0
    for (let i = 0; i < bases.length; i++) if (bases[i]! <= rp) scanFrom = i
  }
  const onBatch = (epoch: number, baseOffset: bigint): void => {
    const latest = epochs.latestEpoch
    if (epoch >= 0 && (latest === undefined || epoch > latest)) epochs.assign(epoch, baseOffset)
  }
  const allowGaps = names.includes(OFFSET_GAPS_MARKER_FILE)
  const recoverOpts = (endOffset: bigint | undefined) => ({
    cache,
    logger,
    indexIntervalBytes: options.indexIntervalBytes,
    stats,
    onBatch,
    endOffset,
    allowGaps,
  })
  for (let i = 0; i < bases.length; i++) {
    const base = bases[i]!
    const isLast = i === bases.length - 1
    const paths = segmentPaths(dir, base)
    const files = await statSegment(paths)
    const prev = segments[segments.length - 1]
    if (prev !== undefined && prev.nextOffset > base) {
      // A scanned predecessor ended somewhere else: this segment cannot continue the log.
      await dropSegments(
        bases.slice(i),
        dir,
        cache,
        logger,
        stats,
        `previous segment ends at offset ${prev.nextOffset}`,
      )
      break
    }
    const seg = new Segment(base, paths, cache, {
      sizeBytes: files.logBytes,
      nextOffset: isLast ? base : bases[i + 1]!,
      offsetIndexEntries: Math.floor(Math.max(0, files.indexBytes) / OFFSET_INDEX_ENTRY_BYTES),
      timeIndexEntries: Math.floor(Math.max(0, files.timeIndexBytes) / TIME_INDEX_ENTRY_BYTES),
    })
    const indexesLookValid =
      files.indexBytes >= 0 &&
      files.indexBytes % OFFSET_INDEX_ENTRY_BYTES === 0 &&
      files.timeIndexBytes >= 0 &&
      files.timeIndexBytes % TIME_INDEX_ENTRY_BYTES === 0
    // An empty segment with empty or missing indexes (created on first append) needs no scan:
    // the common idle partition loads from stat alone.
    const emptyAndConsistent = files.logBytes === 0 && files.indexBytes <= 0 && files.timeIndexBytes <= 0
    let scan = (i >= scanFrom || !indexesLookValid) && !emptyAndConsistent
    if (!scan && isLast) scan = !(await loadTailOffset(seg))
    segments.push(seg)
    if (!scan) continue
    if (rp === undefined)
      logger.warn({ segment: paths.log }, 'rebuilding missing or invalid index after clean shutdown')
    const outcome = await recoverSegment(seg, files.logBytes, recoverOpts(isLast ? undefined : bases[i + 1]))
    if (outcome.problem !== undefined && !isLast) {
      await dropSegments(bases.slice(i + 1), dir, cache, logger, stats, 'an earlier segment was truncated')
      break
    }
  }
  // Only the last segment may stay active (hold in-memory indexes).
  for (const seg of segments.slice(0, -1)) if (seg.active !== undefined) await seg.finalize()
  const logEnd = segments[segments.length - 1]!.nextOffset
  epochs.truncateFromEnd(logEnd)
  if (epochSignature(epochs) !== epochsAtStart) await epochs.persist()
  const recoveryPoint = rp === undefined ? logEnd : rp < logEnd ? rp : logEnd
  return { segments, epochs, recoveryPoint, mayHaveGaps: allowGaps }
}

/** Sorted base offsets of the .log files; completes swaps, removes temp files and orphan indexes. */
async function listSegments(dir: string, logger: Logger): Promise<{ bases: bigint[]; names: string[] }> {
  let names = await fs.readdir(dir)
  if (names.some((n) => parseSwapFileName(n) !== undefined)) {
    await completeSwaps(dir, names, logger)
    names = await fs.readdir(dir)
  }
  const bases = new Set<bigint>()
  for (const name of names) {
    const base = parseSegmentFileName(name, LOG_SUFFIX)
    if (base !== undefined) bases.add(base)
  }
  for (const name of names) {
    const orphanIndex = [INDEX_SUFFIX, TIME_INDEX_SUFFIX].some((sfx) => {
      const b = parseSegmentFileName(name, sfx)
      return b !== undefined && !bases.has(b)
    })
    if (name.endsWith(TEMP_SUFFIX) || name.endsWith(DELETED_SUFFIX) || name.endsWith(CLEANED_SUFFIX) || orphanIndex) {
      logger.info({ file: path.join(dir, name) }, 'removing leftover file')
      await fs.rm(path.join(dir, name), { force: true })
    }
  }
  return { bases: [...bases].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), names }
}

async function statSegment(paths: {
  log: string
  index: string
  timeIndex: string
}): Promise<{ logBytes: number; indexBytes: number; timeIndexBytes: number }> {
  const size = async (file: string): Promise<number> => {
    try {
      return (await fs.stat(file)).size
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return -1
      throw err
    }
  }
  return {
    logBytes: Math.max(0, await size(paths.log)),
    indexBytes: await size(paths.index),
    timeIndexBytes: await size(paths.timeIndex),
  }
}

/**
 * Trusted load of the active segment: its next offset from the last offset-index entry plus a
 * header scan of the batches after it. False if the index or the tail does not add up.
 */
async function loadTailOffset(seg: Segment): Promise<boolean> {
  if (seg.sizeBytes === 0) {
    seg.nextOffset = seg.baseOffset
    return seg.offsetIndexEntries === 0
  }
  let from = 0
  if (seg.offsetIndexEntries > 0) {
    const last = await seg.readLastOffsetEntry().catch(() => undefined)
    if (last === undefined || last.position < 0 || last.position >= seg.sizeBytes) return false
    from = last.position
  }
  const tail = await seg.scanTail(from)
  if (tail === undefined) return false
  seg.nextOffset = tail.lastOffset === undefined ? seg.baseOffset : tail.lastOffset + 1n
  if (from === 0 && tail.lastOffset === undefined && seg.sizeBytes > 0) return false
  return true
}

function epochSignature(epochs: LeaderEpochCache): string {
  return epochs.all.map((e) => `${e.epoch}:${e.startOffset}`).join(',')
}

async function dropSegments(
  bases: readonly bigint[],
  dir: string,
  cache: FileHandleCache,
  logger: Logger,
  stats: RecoveryStats,
  reason: string,
): Promise<void> {
  for (const base of bases) {
    const paths = segmentPaths(dir, base)
    logger.warn({ segment: paths.log, reason }, 'deleting segment after the recovered end of the log')
    for (const file of [paths.log, paths.index, paths.timeIndex]) {
      await cache.evict(file)
      await fs.rm(file, { force: true })
    }
    stats.segmentsDeleted++
  }
}

/**
 * Finishes cleaner swaps interrupted by a crash (log-cleaner.ts): the swap file was fully written
 * and fsynced before it got its name, so it replaces every segment in its range. Idempotent.
 */
async function completeSwaps(dir: string, names: string[], logger: Logger): Promise<void> {
  for (const name of names) {
    const swap = parseSwapFileName(name)
    if (swap === undefined) continue
    for (const other of names) {
      const base =
        parseSegmentFileName(other, LOG_SUFFIX) ??
        parseSegmentFileName(other, INDEX_SUFFIX) ??
        parseSegmentFileName(other, TIME_INDEX_SUFFIX)
      if (base !== undefined && base >= swap.baseOffset && base < swap.endOffset)
        await fs.rm(path.join(dir, other), { force: true })
    }
    await fs.rename(path.join(dir, name), segmentPaths(dir, swap.baseOffset).log)
    logger.warn({ dir, swap: name }, 'completed an interrupted compaction swap')
  }
  await fsyncDir(dir)
}
