/**
 * Several data directories per broker (Kafka's `log.dirs`): one LogManager per directory, each
 * with its own recovery, clean-shutdown marker, checkpoints, group commit and delayed deleter, so
 * a disk that fills up or syncs slowly affects only the partitions that live on it. What they
 * share is the broker's open-file budget (one FileHandleCache) and the cleaner's key map.
 *
 * Placement: a partition found on disk stays where it is; a new one goes to the directory holding
 * the fewest partitions (counting ones being created; ties go to the earlier directory in the
 * list), as Kafka does. Placement is decided synchronously, so concurrent creations spread out.
 * The same partition in two directories at start is refused (which copy is right is the
 * operator's call), as Kafka refuses duplicate log directories.
 *
 * Disk full on one directory is not a failure of the directory (docs/decisions.md): the append
 * that hit ENOSPC fails with KAFKA_STORAGE_ERROR and is undone, the directory stays online, and
 * writes resume once space returns. Reads and the other directories are not affected.
 */
import type { Logger } from 'pino'
import { DEFAULT_MAX_OPEN_FILES, FileHandleCache } from '../io/file-handle-cache.js'
import { LogCleaner, type LogCleanerOptions } from '../cleaner/log-cleaner.js'
import type { LogConfig } from '../log-config.js'
import { partitionDirName } from '../segment/log-files.js'
import { LogManager, type LogManagerOptions } from './log-manager.js'
import type { PartitionLog } from '../partition/partition-log.js'
import { emptyRecoveryStats, type RecoveryStats } from '../segment/segment-recovery.js'

/** What the replica manager and log maintenance need of the broker's storage (one dir or many). */
export interface LogStore {
  readonly dataDirs: readonly string[]
  getLog(topic: string, partition: number): PartitionLog | undefined
  getOrCreateLog(topic: string, partition: number, config: LogConfig): Promise<PartitionLog>
  deleteLog(topic: string, partition: number): Promise<void>
  listLogs(): Array<{ topic: string; partition: number }>
  checkpointAll(): Promise<void>
  createCleaner(options?: Omit<LogCleanerOptions, 'cache' | 'logger'>): LogCleaner
}

export interface LogDirsOptions extends Omit<LogManagerOptions, 'dataDir' | 'cache'> {
  /** At least one; each must be a different directory. */
  dataDirs: readonly string[]
}

export class LogDirs implements LogStore {
  readonly dataDirs: readonly string[]
  readonly managers: readonly LogManager[]
  private readonly cache: FileHandleCache
  private readonly logger: Logger
  /** partitionDirName -> the manager holding (or creating) that log. */
  private readonly placement = new Map<string, LogManager>()
  /** Partitions placed on each manager (kept with `placement`, so choosing a dir costs O(dirs)). */
  private readonly counts = new Map<LogManager, number>()
  private closed = false

  private constructor(dataDirs: readonly string[], managers: LogManager[], cache: FileHandleCache, logger: Logger) {
    this.dataDirs = dataDirs
    this.managers = managers
    this.cache = cache
    this.logger = logger
  }

  static async open(options: LogDirsOptions): Promise<LogDirs> {
    const dirs = [...options.dataDirs]
    if (dirs.length === 0) throw new Error('LogDirs: at least one data dir is required')
    if (new Set(dirs).size !== dirs.length) throw new Error(`LogDirs: a data dir is listed twice: ${dirs.join(',')}`)
    const cache = new FileHandleCache({ maxOpenFiles: options.maxOpenFiles ?? DEFAULT_MAX_OPEN_FILES })
    const managers: LogManager[] = []
    try {
      // One after the other: recovery of each dir already runs its partitions in parallel.
      for (const dataDir of dirs) managers.push(await LogManager.open({ ...options, dataDir, cache }))
      const logDirs = new LogDirs(dirs, managers, cache, options.logger)
      logDirs.indexExisting()
      return logDirs
    } catch (err) {
      for (const m of managers) await m.close().catch(() => undefined)
      await cache.close()
      throw err
    }
  }

  private indexExisting(): void {
    for (const m of this.managers) {
      for (const { topic, partition } of m.listLogs()) {
        const key = partitionDirName(topic, partition)
        const other = this.placement.get(key)
        if (other !== undefined) {
          throw new Error(
            `partition ${topic}-${partition} exists in two data dirs (${other.dataDir} and ${m.dataDir}); ` +
              'remove the copy that is not wanted and start again',
          )
        }
        this.place(key, m)
      }
    }
  }

  getLog(topic: string, partition: number): PartitionLog | undefined {
    return this.placement.get(partitionDirName(topic, partition))?.getLog(topic, partition)
  }

  /** The data dir holding a partition's log, if any. */
  dataDirOf(topic: string, partition: number): string | undefined {
    return this.placement.get(partitionDirName(topic, partition))?.dataDir
  }

  async getOrCreateLog(topic: string, partition: number, config: LogConfig): Promise<PartitionLog> {
    if (this.closed) throw new Error('log dirs are closed')
    const key = partitionDirName(topic, partition)
    let manager = this.placement.get(key)
    if (manager === undefined) {
      manager = this.leastLoaded()
      this.place(key, manager)
      this.logger.info({ topic, partition, dataDir: manager.dataDir }, 'placing a new partition log')
    }
    try {
      return await manager.getOrCreateLog(topic, partition, config)
    } catch (err) {
      if (manager.getLog(topic, partition) === undefined && this.placement.get(key) === manager) this.unplace(key)
      throw err
    }
  }

  async deleteLog(topic: string, partition: number): Promise<void> {
    const key = partitionDirName(topic, partition)
    const manager = this.placement.get(key)
    if (manager === undefined) return
    await manager.deleteLog(topic, partition)
    if (this.placement.get(key) === manager && manager.getLog(topic, partition) === undefined) this.unplace(key)
  }

  listLogs(): Array<{ topic: string; partition: number }> {
    return this.managers.flatMap((m) => m.listLogs())
  }

  async checkpointAll(): Promise<void> {
    // Per dir: a full disk on one must not keep the others' checkpoints from being written.
    const results = await Promise.allSettled(this.managers.map(async (m) => await m.checkpointAll()))
    const failed = results.find((r) => r.status === 'rejected')
    if (failed !== undefined) throw (failed as PromiseRejectedResult).reason
  }

  async checkpointRecoveryPoints(): Promise<void> {
    for (const m of this.managers) await m.checkpointRecoveryPoints()
  }

  /** One cleaner for every dir: it shares the file-handle budget, and its key map is allocated once. */
  createCleaner(options: Omit<LogCleanerOptions, 'cache' | 'logger'> = {}): LogCleaner {
    return new LogCleaner({ ...options, cache: this.cache, logger: this.logger.child({ component: 'log-cleaner' }) })
  }

  /** Summed over the dirs; cleanShutdown only if every dir was shut down cleanly. @internal (tests, metrics) */
  get recoveryStats(): RecoveryStats {
    const sum = emptyRecoveryStats(this.managers.every((m) => m.recoveryStats.cleanShutdown))
    for (const m of this.managers) {
      const s = m.recoveryStats
      sum.segmentsScanned += s.segmentsScanned
      sum.batchesScanned += s.batchesScanned
      sum.indexesRebuilt += s.indexesRebuilt
      sum.bytesTruncated += s.bytesTruncated
      sum.segmentsDeleted += s.segmentsDeleted
    }
    return sum
  }

  /** Open file handles right now / at most so far (shared by every dir). @internal (tests) */
  get openFileCount(): number {
    return this.cache.openCount
  }
  get openFileCountMax(): number {
    return this.cache.openCountMax
  }

  /** Closes every dir (each writes its own clean-shutdown marker), then the shared handles. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    try {
      const results = await Promise.allSettled(this.managers.map(async (m) => await m.close()))
      const failed = results.find((r) => r.status === 'rejected')
      if (failed !== undefined) throw (failed as PromiseRejectedResult).reason
    } finally {
      await this.cache.close()
    }
  }

  /** A simulated crash of every dir. @internal (tests) */
  async abandonForTesting(): Promise<void> {
    this.closed = true
    for (const m of this.managers) await m.abandonForTesting()
    await this.cache.close()
  }

  private leastLoaded(): LogManager {
    let best = this.managers[0]!
    for (const m of this.managers) {
      if (this.countOn(m) < this.countOn(best)) best = m
    }
    return best
  }

  private countOn(m: LogManager): number {
    return this.counts.get(m) ?? 0
  }

  private place(key: string, m: LogManager): void {
    this.placement.set(key, m)
    this.counts.set(m, this.countOn(m) + 1)
  }

  private unplace(key: string): void {
    const m = this.placement.get(key)
    if (m === undefined) return
    this.placement.delete(key)
    this.counts.set(m, this.countOn(m) - 1)
  }
}
