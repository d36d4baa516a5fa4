/**
 * Restore progress of one instance, as numbers (StreamsApp.metrics().restore) and as log lines:
 * one when a restore starts (what it will read), one about every second while it runs (records
 * restored, records/s, remaining) and one when it ends (duration and rate).
 */
import type { Logger } from '@sluice/client'

export interface RestoreMetrics {
  /** True while a restore runs. */
  readonly active: boolean
  /** Changelog records applied by the restore running now (or the last one). */
  readonly restoredRecords: number
  /** Records still to read in the running restore (an upper bound: compaction leaves gaps). */
  readonly remainingRecords: number
  /** Rate of the running restore, or of the last one once it ended. */
  readonly recordsPerSecond: number
  /** Duration of the running or last restore. */
  readonly durationMs: number
  /** Every changelog record this instance ever restored. */
  readonly totalRestoredRecords: number
  /** Restores run (each rebalance that creates tasks with logged stores runs one). */
  readonly restores: number
}

export class RestoreProgress {
  private active = false
  private restored = 0
  private planned = 0
  private startedAt = 0
  private endedAt = 0
  private total = 0
  private restores = 0
  private lastLogAt = 0

  constructor(
    private readonly log: Logger,
    private readonly clock: () => number = Date.now,
    private readonly logEveryMs = 1000,
  ) {}

  begin(plannedRecords: number, partitions: number, tasks: string[]): void {
    this.active = true
    this.restored = 0
    this.planned = plannedRecords
    this.startedAt = this.clock()
    this.lastLogAt = this.startedAt
    this.restores++
    this.log.info({ tasks, partitions, remainingRecords: plannedRecords }, 'restoring state stores from changelogs')
  }

  add(records: number): void {
    this.restored += records
    this.total += records
    const now = this.clock()
    if (now - this.lastLogAt >= this.logEveryMs) {
      this.lastLogAt = now
      const m = this.snapshot()
      this.log.info(
        {
          restoredRecords: m.restoredRecords,
          remainingRecords: m.remainingRecords,
          recordsPerSecond: Math.round(m.recordsPerSecond),
        },
        'restore progress',
      )
    }
  }

  /** A partition finished early (compaction gaps): what it had left is no longer remaining. */
  finishedPartition(leftUnread: number): void {
    this.planned -= leftUnread
  }

  end(): void {
    this.active = false
    this.endedAt = this.clock()
    const m = this.snapshot()
    this.log.info(
      {
        restoredRecords: m.restoredRecords,
        durationMs: m.durationMs,
        recordsPerSecond: Math.round(m.recordsPerSecond),
      },
      'restore done',
    )
  }

  snapshot(): RestoreMetrics {
    const durationMs = (this.active ? this.clock() : this.endedAt) - this.startedAt
    return {
      active: this.active,
      restoredRecords: this.restored,
      remainingRecords: this.active ? Math.max(0, this.planned - this.restored) : 0,
      recordsPerSecond: durationMs > 0 ? (this.restored * 1000) / durationMs : 0,
      durationMs: this.restores === 0 ? 0 : durationMs,
      totalRestoredRecords: this.total,
      restores: this.restores,
    }
  }
}
