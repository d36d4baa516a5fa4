/**
 * Leader-epoch cache of one partition replica (KIP-101/279, docs/kafka-facts.md §3.6): the sorted list
 * of (epoch, startOffset) pairs, strictly increasing in both fields, persisted as
 * `<partition dir>/leader-epoch-checkpoint` in Kafka's checkpoint format ("epoch startOffset"
 * lines). An entry is added when an append carries a higher epoch than the last entry, trimmed
 * from the end when the log is truncated. Every change rewrites the (tiny) file atomically.
 */
import path from 'node:path'
import type { Logger } from 'pino'
import { parseOffsetField, readCheckpointFile, writeCheckpointFile } from '../io/checkpoint-file.js'
import { LEADER_EPOCH_CHECKPOINT_FILE } from '../segment/log-files.js'

export interface EpochEntry {
  readonly epoch: number
  readonly startOffset: bigint
}

export type IoRunner = <T>(fn: () => Promise<T>) => Promise<T>

/** Kafka's UNDEFINED_EPOCH / UNDEFINED_EPOCH_OFFSET. */
export const UNDEFINED_EPOCH = -1
export const UNDEFINED_EPOCH_OFFSET = -1n

export class LeaderEpochCache {
  private entries: EpochEntry[]
  private readonly file: string

  private constructor(
    dir: string,
    entries: EpochEntry[],
    private readonly runIo: IoRunner,
  ) {
    this.file = path.join(dir, LEADER_EPOCH_CHECKPOINT_FILE)
    this.entries = entries
  }

  /** `runIo` wraps the file write (LogManager passes the fd budget's withSlot); `fileExists` false skips the read. */
  static async load(
    dir: string,
    logger: Logger,
    runIo: IoRunner = (fn) => fn(),
    fileExists = true,
  ): Promise<LeaderEpochCache> {
    const file = path.join(dir, LEADER_EPOCH_CHECKPOINT_FILE)
    // The loader already listed the directory: no read for a file it did not see (idle partitions).
    const read = fileExists ? await readCheckpointFile(file, 2) : { kind: 'missing' as const }
    if (read.kind === 'corrupt')
      logger.warn({ file, reason: read.reason }, 'leader-epoch checkpoint unreadable, starting empty')
    const entries: EpochEntry[] = []
    if (read.kind === 'ok') {
      for (const [e, o] of read.entries) {
        const epoch = Number(e)
        const startOffset = parseOffsetField(o!)
        const last = entries[entries.length - 1]
        if (
          !Number.isInteger(epoch) ||
          epoch < 0 ||
          epoch > 0x7fffffff ||
          startOffset === undefined ||
          (last !== undefined && (epoch <= last.epoch || startOffset < last.startOffset))
        ) {
          logger.warn({ file, entry: `${e} ${o}` }, 'leader-epoch checkpoint entry out of order, ignoring the rest')
          break
        }
        entries.push({ epoch, startOffset })
      }
    }
    return new LeaderEpochCache(dir, entries, runIo)
  }

  get all(): EpochEntry[] {
    return this.entries.slice()
  }

  get latestEpoch(): number | undefined {
    return this.entries[this.entries.length - 1]?.epoch
  }

  /**
   * Records that `epoch` starts at `startOffset` if it is newer than the last entry. Returns
   * whether the cache changed (the caller then persists it).
   */
  assign(epoch: number, startOffset: bigint): boolean {
    if (epoch < 0) return false
    const last = this.entries[this.entries.length - 1]
    if (last !== undefined && epoch <= last.epoch) return false
    // A new epoch cannot start before an older one; drop entries it would contradict.
    this.entries = this.entries.filter((e) => e.startOffset < startOffset)
    this.entries.push({ epoch, startOffset })
    return true
  }

  /** Removes entries that start at or after `endOffset` (the log was truncated there). */
  truncateFromEnd(endOffset: bigint): boolean {
    const kept = this.entries.filter((e) => e.startOffset < endOffset)
    if (kept.length === this.entries.length) return false
    this.entries = kept
    return true
  }

  /** Removes everything (the log was emptied and restarted at a new offset). */
  clear(): boolean {
    if (this.entries.length === 0) return false
    this.entries = []
    return true
  }

  /**
   * KIP-279 `endOffsetFor`: the largest epoch <= `requested` this replica knows and the offset
   * where that epoch ended (the next epoch's start, or `logEndOffset` for the latest epoch).
   * Mirrors Kafka's LeaderEpochFileCache, including its answers for unknown epochs.
   */
  endOffsetFor(requested: number, logEndOffset: bigint): { epoch: number; endOffset: bigint } {
    const undefinedAnswer = { epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET }
    if (requested === UNDEFINED_EPOCH) return undefinedAnswer
    if (this.latestEpoch === requested) return { epoch: requested, endOffset: logEndOffset }
    const higher = this.entries.find((e) => e.epoch > requested)
    if (higher === undefined) return undefinedAnswer
    let floor: EpochEntry | undefined
    for (const e of this.entries) if (e.epoch <= requested) floor = e
    return { epoch: floor?.epoch ?? requested, endOffset: higher.startOffset }
  }

  async persist(): Promise<void> {
    const entries = this.entries.map((e) => [String(e.epoch), e.startOffset.toString()])
    await this.runIo(() => writeCheckpointFile(this.file, entries))
  }
}
