/**
 * The broker's log maintenance (docs/kafka-facts.md §8, Kafka `LogManager` scheduler +
 * `LogCleaner`): ONE timer for all partitions, firing every `intervalMs`
 * (log.retention.check.interval.ms). A tick
 *   1. walks every log in slices of `sliceSize`, yielding to the event loop between slices, and
 *      applies retention (delete policy: retention.ms / retention.bytes; any policy: segments
 *      wholly below the log start offset), never beyond the partition's high watermark. A log is
 *      skipped without touching its files when nothing changed since its last check (segments,
 *      config, high watermark) and time alone cannot make a segment expire yet;
 *   2. compacts at most `maxCleaningsPerTick` logs (compact policy): those with the highest
 *      dirty ratio at or above their min.cleanable.dirty.ratio, or with expired tombstones —
 *      chosen from in-memory numbers (plus, with min.compaction.lag.ms, each cleanable
 *      segment's largest timestamp, read once from its time index);
 *   3. writes the recovery-point, log-start-offset and cleaner-offset checkpoints if changed.
 * The high watermark comes from the caller (the replica manager): a log whose partition is not
 * hosted, or whose HW is unknown, is left alone. Ticks never overlap; errors are logged per log.
 * Idle partitions cost a few comparisons per tick: no timer, file handle or buffer of their own.
 */
import type { Logger } from 'pino'
import { systemClock, type Clock, type Timer } from '@sluice/protocol'
import type { LogCleaner, LogStore, PartitionLog } from './log/index.js'

export interface LogMaintenanceOptions {
  logManager: LogStore
  logger: Logger
  /** Time between ticks (log.retention.check.interval.ms, default 300000). */
  intervalMs?: number
  /** High watermark of a hosted partition, undefined when unknown (then the log is left alone). */
  highWatermark: (topic: string, partition: number) => bigint | undefined
  /** Logs handled between two yields to the event loop (default 500). */
  sliceSize?: number
  /** Compactions per tick at most (default 1). */
  maxCleaningsPerTick?: number
  /** Offset-map budget of the cleaner (default 16 MiB). */
  cleanerDedupeBufferBytes?: number
  /** What retention and compaction compare record times against, and the tick timer (default: systemClock). */
  clock?: Clock
}

export interface MaintenanceReport {
  logsVisited: number
  logsChecked: number
  segmentsDeleted: number
  bytesDeleted: number
  logsCleaned: number
}

interface RetentionMemo {
  changes: number
  hw: bigint
  recheckAt: number
}

export class LogMaintenance {
  private readonly intervalMs: number
  private readonly sliceSize: number
  private readonly clock: Clock
  private readonly cleaner: LogCleaner
  private readonly memo = new WeakMap<PartitionLog, RetentionMemo>()
  private timer: Timer | undefined
  private running: Promise<MaintenanceReport> | undefined
  private stopped = false

  constructor(private readonly options: LogMaintenanceOptions) {
    this.intervalMs = options.intervalMs ?? 300_000
    this.sliceSize = Math.max(1, options.sliceSize ?? 500)
    const clock = options.clock ?? systemClock
    this.clock = clock
    this.cleaner = options.logManager.createCleaner({ dedupeBufferBytes: options.cleanerDedupeBufferBytes, clock })
  }

  start(): void {
    if (this.stopped || this.timer !== undefined) return
    this.arm()
  }

  /** Stops the timer and waits for a running tick. */
  async stop(): Promise<void> {
    this.stopped = true
    this.timer?.cancel()
    this.timer = undefined
    await this.running?.catch(() => undefined)
  }

  /** One tick now (tests; the timer calls it too). Joins a tick already running. */
  async runOnce(): Promise<MaintenanceReport> {
    this.running ??= this.tick().finally(() => {
      this.running = undefined
    })
    return await this.running
  }

  private arm(): void {
    this.timer = this.clock
      .setTimeout(() => {
        this.runOnce()
          .catch((err: unknown) => {
            this.options.logger.error({ err }, 'log maintenance tick failed')
          })
          .finally(() => {
            if (!this.stopped) this.arm()
          })
      }, this.intervalMs)
      .unref()
  }

  private async tick(): Promise<MaintenanceReport> {
    const report: MaintenanceReport = {
      logsVisited: 0,
      logsChecked: 0,
      segmentsDeleted: 0,
      bytesDeleted: 0,
      logsCleaned: 0,
    }
    const { logManager, logger } = this.options
    const logs = logManager.listLogs()
    const candidates: Array<{ log: PartitionLog; hw: bigint; ratio: number }> = []
    for (let i = 0; i < logs.length && !this.stopped; i += this.sliceSize) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve))
      for (const { topic, partition } of logs.slice(i, i + this.sliceSize)) {
        const log = logManager.getLog(topic, partition)
        const hw = this.options.highWatermark(topic, partition)
        if (log === undefined || hw === undefined || log.isFailed) continue
        report.logsVisited++
        try {
          await this.retention(log, hw, report)
          const { due, range } = await this.cleaner.needsCleaning(log, hw)
          if (due) candidates.push({ log, hw, ratio: range.dirtyRatio })
        } catch (err) {
          logger.error({ err, topic, partition }, 'log retention failed')
        }
      }
    }
    candidates.sort((a, b) => b.ratio - a.ratio)
    for (const c of candidates.slice(0, this.options.maxCleaningsPerTick ?? 1)) {
      if (this.stopped) break
      try {
        await this.cleaner.clean(c.log, c.hw)
        report.logsCleaned++
      } catch (err) {
        logger.error({ err, topic: c.log.topic, partition: c.log.partition }, 'log compaction failed')
      }
    }
    try {
      await logManager.checkpointAll()
    } catch (err) {
      logger.error({ err }, 'writing log checkpoints failed')
    }
    return report
  }

  private async retention(log: PartitionLog, hw: bigint, report: MaintenanceReport): Promise<void> {
    const now = this.clock.nowMs()
    const memo = this.memo.get(log)
    if (memo !== undefined && memo.changes === log.changeCount && memo.hw === hw && now < memo.recheckAt) return
    report.logsChecked++
    const res = await log.deleteRetainedSegments(now, hw)
    report.segmentsDeleted += res.segmentsDeleted
    report.bytesDeleted += res.bytesDeleted
    this.memo.set(log, { changes: log.changeCount, hw, recheckAt: res.recheckAt })
  }
}
