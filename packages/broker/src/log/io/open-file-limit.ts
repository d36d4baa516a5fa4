/**
 * The default size of the log's file-handle cache (file-handle-cache.ts), from the process's
 * open-file limit (`ulimit -n`, RLIMIT_NOFILE soft limit; read from /proc/self/limits, since Node
 * has no getrlimit).
 *
 * Why it matters: the cache is an LRU, so once more partitions are written to than it holds, every
 * append reopens its segment file and closes another one (the bench's 1,000-active-partition run
 * spent ~40 % of the broker's busy time in open/close with the old fixed 512). Kafka keeps every
 * segment open and asks operators for a high limit; Sluice keeps the bound (idle partitions hold
 * no file, docs/design.md §4) but sizes it from the limit the operator gave the process: half of it,
 * leaving the other half for sockets and transient files, at most MAX_DEFAULT.
 */
import { readFileSync } from 'node:fs'
import { DEFAULT_MAX_OPEN_FILES } from './file-handle-cache.js'
/** Upper bound of the default; a larger cache can still be configured (--max-open-files). */
export const MAX_DEFAULT_OPEN_FILES = 65_536
const MIN_DEFAULT_OPEN_FILES = 16

/** The soft "Max open files" limit from /proc/<pid>/limits text; Infinity for unlimited, undefined when absent. */
export function parseOpenFileLimit(limitsText: string): number | undefined {
  const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(limitsText)
  if (m === null) return undefined
  if (m[1] === 'unlimited') return Infinity
  const n = Number(m[1])
  return Number.isInteger(n) && n > 0 ? n : undefined
}

/** The default for this process (its own soft limit). */
export function defaultMaxOpenFiles(): number {
  return maxOpenFilesFor(readOwnOpenFileLimit())
}

/** Half the soft limit, within [16, 65,536]; the cache's own default (512, safe under the common 1,024) when the limit is unknown. */
export function maxOpenFilesFor(softLimit: number | undefined): number {
  if (softLimit === undefined) return DEFAULT_MAX_OPEN_FILES
  return Math.max(MIN_DEFAULT_OPEN_FILES, Math.min(MAX_DEFAULT_OPEN_FILES, Math.floor(softLimit / 2)))
}

function readOwnOpenFileLimit(): number | undefined {
  try {
    return parseOpenFileLimit(readFileSync('/proc/self/limits', 'utf8'))
  } catch {
    return undefined
  }
}
