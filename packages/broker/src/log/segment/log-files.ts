/**
 * File naming inside a data dir (docs/design.md §4, docs/kafka-facts.md §2.1):
 *   <dataDir>/<topic>-<partition>/<baseOffset 20 digits>.log | .index | .timeindex
 *   <dataDir>/<topic>-<partition>/leader-epoch-checkpoint
 *   <dataDir>/recovery-point-offset-checkpoint, <dataDir>/.sluice_cleanshutdown
 *   <dataDir>/log-start-offset-checkpoint, <dataDir>/cleaner-offset-checkpoint
 * Transient names inside a partition dir (resolved by the loader at startup):
 *   <file>.deleted                      a segment file removed from the log, deleted after a delay
 *   <base>.log.cleaned | .index.cleaned | .timeindex.cleaned   a cleaner output being written
 *   <base>.<end>.log.swap               a committed cleaner output replacing the segments whose
 *                                       base offsets lie in [base, end) (see log-cleaner.ts)
 * Topic names may contain '-', so the partition is the text after the last '-'.
 */
import path from 'node:path'

export const LOG_SUFFIX = '.log'
export const INDEX_SUFFIX = '.index'
export const TIME_INDEX_SUFFIX = '.timeindex'
export const CLEAN_SHUTDOWN_FILE = '.sluice_cleanshutdown'
export const RECOVERY_POINT_CHECKPOINT_FILE = 'recovery-point-offset-checkpoint'
export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint'
export const TEMP_SUFFIX = '.tmp'
export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint'
export const CLEANER_OFFSET_CHECKPOINT_FILE = 'cleaner-offset-checkpoint'
export const DELETED_SUFFIX = '.deleted'
/**
 * Present in a partition directory once its log may legitimately have offset gaps (it was
 * compacted here, or it replicated batches with gaps from a compacted leader). Without it,
 * recovery requires every batch to start exactly where the previous one ended: the 8 offset
 * bytes are outside the CRC, and contiguity is what catches their corruption.
 */
export const OFFSET_GAPS_MARKER_FILE = 'offset-gaps'
export const CLEANED_SUFFIX = '.cleaned'
export const SWAP_SUFFIX = '.log.swap'

export function partitionDirName(topic: string, partition: number): string {
  return `${topic}-${partition}`
}

/** Parses `<topic>-<partition>`; undefined for anything else (e.g. leftovers of other tools). */
export function parsePartitionDirName(name: string): { topic: string; partition: number } | undefined {
  const dash = name.lastIndexOf('-')
  if (dash <= 0 || dash === name.length - 1) return undefined
  const digits = name.slice(dash + 1)
  if (!/^\d{1,9}$/.test(digits)) return undefined
  return { topic: name.slice(0, dash), partition: Number(digits) }
}

export function segmentFileStem(baseOffset: bigint): string {
  return baseOffset.toString().padStart(20, '0')
}

export interface SegmentPaths {
  readonly log: string
  readonly index: string
  readonly timeIndex: string
}

export function segmentPaths(dir: string, baseOffset: bigint): SegmentPaths {
  const stem = path.join(dir, segmentFileStem(baseOffset))
  return { log: stem + LOG_SUFFIX, index: stem + INDEX_SUFFIX, timeIndex: stem + TIME_INDEX_SUFFIX }
}

/** Base offset of a `<20 digits>.<suffix>` file name, or undefined. */
export function parseSegmentFileName(name: string, suffix: string): bigint | undefined {
  if (!name.endsWith(suffix)) return undefined
  const stem = name.slice(0, -suffix.length)
  return /^\d{20}$/.test(stem) ? BigInt(stem) : undefined
}

/** Paths of a cleaner output while it is written (`<file>.cleaned`). */
export function cleanedPaths(dir: string, baseOffset: bigint): SegmentPaths {
  const p = segmentPaths(dir, baseOffset)
  return { log: p.log + CLEANED_SUFFIX, index: p.index + CLEANED_SUFFIX, timeIndex: p.timeIndex + CLEANED_SUFFIX }
}

/** `<base>.<end>.log.swap`: the commit marker and data of a cleaned group replacing [base, end). */
export function swapFileName(baseOffset: bigint, endOffset: bigint): string {
  return `${segmentFileStem(baseOffset)}.${segmentFileStem(endOffset)}${SWAP_SUFFIX}`
}

export function parseSwapFileName(name: string): { baseOffset: bigint; endOffset: bigint } | undefined {
  const m = /^(\d{20})\.(\d{20})\.log\.swap$/.exec(name)
  if (m === null) return undefined
  return { baseOffset: BigInt(m[1]!), endOffset: BigInt(m[2]!) }
}
