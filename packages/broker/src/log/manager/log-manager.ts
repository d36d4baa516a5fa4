/**
 * All partition logs of one data dir (docs/design.md §4): loading and recovery at open, the
 * clean-shutdown marker, the checkpoints, the shared file-handle LRU, the shared group commit
 * (data-dir-sync.ts) and the delayed deleter of removed segment files.
 *   <dataDir>/.sluice_cleanshutdown            written last by close(); consumed (deleted) by open
 *   <dataDir>/recovery-point-offset-checkpoint "topic partition offset" lines (Kafka format)
 *   <dataDir>/log-start-offset-checkpoint      same format; only logs whose start is inside their
 *                                              first segment (DeleteRecords) need an entry
 *   <dataDir>/cleaner-offset-checkpoint        same format; first dirty offset of compacted logs
 *   <dataDir>/<topic>-<partition>/             one PartitionLog each
 * Every checkpoint is written atomically (checkpoint-file.ts). The recovery-point checkpoint is
 * rewritten on close, when a truncation lowers a recovery point, after a log is deleted (so a
 * re-created partition never inherits a stale point), and on request; the log-start-offset one
 * whenever a start offset moves (before DeleteRecords answers), coalesced across logs; all three
 * by the maintenance scheduler when their content changed, and on close.
 */
import { randomUUID } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import type { Logger } from 'pino'
import type { Clock } from '@sluice/protocol'
import { fsyncDir, parseOffsetField, readCheckpointFile, writeCheckpointFile } from '../io/checkpoint-file.js'
import { DataDirSync } from '../io/data-dir-sync.js'
import { DelayedDeleter } from '../io/delayed-deleter.js'
import { DEFAULT_MAX_OPEN_FILES, FileHandleCache } from '../io/file-handle-cache.js'
import { GroupCommit } from '../io/group-commit.js'
import { LogCleaner, type LogCleanerOptions } from '../cleaner/log-cleaner.js'
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../log-config.js'
import {
  CLEAN_SHUTDOWN_FILE,
  CLEANER_OFFSET_CHECKPOINT_FILE,
  LOG_START_OFFSET_CHECKPOINT_FILE,
  parsePartitionDirName,
  partitionDirName,
  RECOVERY_POINT_CHECKPOINT_FILE,
} from '../segment/log-files.js'
import { loadPartitionDir } from './partition-loader.js'
import { PartitionLog } from '../partition/partition-log.js'
import { emptyRecoveryStats, type RecoveryStats } from '../segment/segment-recovery.js'
import { SerialQueue } from '@sluice/server-kit'
import { boundedEach } from '../io/bounded-each.js'

const DELETED_DIR_SUFFIX = '-delete'
// Loading is a handful of small fs calls per partition; enough in flight to keep libuv's pool busy.
const LOAD_CONCURRENCY = 32

export interface LogManagerOptions {
  dataDir: string
  logger: Logger
  /** Open file handles shared by all partitions (default 512). */
  maxOpenFiles?: number
  /**
   * A handle cache shared with other data dirs of the broker (log-dirs.ts): the fd budget is the
   * process's. The owner closes it; without one the manager makes and closes its own.
   */
  cache?: FileHandleCache
  /** Config for logs found on disk until getOrCreateLog supplies theirs (default DEFAULT_LOG_CONFIG). */
  defaultConfig?: Partial<LogConfig>
  /** Delay before renamed-away segment files are removed (Kafka file.delete.delay.ms, default 60000). */
  fileDeleteDelayMs?: number
  /** Times the delayed file removal (default systemClock). */
  clock?: Clock
}

type OffsetMap = Map<string, bigint>

export class LogManager {
  readonly dataDir: string
  private readonly logger: Logger
  private readonly cache: FileHandleCache
  private readonly ownsCache: boolean
  private readonly logs = new Map<string, PartitionLog>()
  private readonly creating = new Map<string, Promise<PartitionLog>>()
  private readonly checkpointQueue = new SerialQueue()
  private readonly defaultConfig: LogConfig
  private readonly sync = new DataDirSync()
  readonly deleter: DelayedDeleter
  private readonly logStartCheckpoint = new GroupCommit(() =>
    this.writeOffsetCheckpoint(LOG_START_OFFSET_CHECKPOINT_FILE),
  )
  /** Last content written per checkpoint file, so unchanged checkpoints cost no write. */
  private readonly written = new Map<string, string>()
  private closed = false
  /** What open() did: clean load or recovery, and how much it scanned. @internal (tests, metrics) */
  readonly recoveryStats: RecoveryStats

  private constructor(options: LogManagerOptions, stats: RecoveryStats) {
    this.dataDir = options.dataDir
    this.logger = options.logger.child({ component: 'log-manager' })
    this.cache = options.cache ?? new FileHandleCache({ maxOpenFiles: options.maxOpenFiles ?? DEFAULT_MAX_OPEN_FILES })
    this.ownsCache = options.cache === undefined
    this.defaultConfig = { ...DEFAULT_LOG_CONFIG, ...options.defaultConfig }
    this.recoveryStats = stats
    this.deleter = new DelayedDeleter(options.fileDeleteDelayMs ?? 60_000, this.logger, options.clock)
  }

  static async open(options: LogManagerOptions): Promise<LogManager> {
    await fs.mkdir(options.dataDir, { recursive: true })
    const marker = path.join(options.dataDir, CLEAN_SHUTDOWN_FILE)
    const clean = await fs.rm(marker).then(
      () => true,
      () => false,
    )
    if (clean) await fsyncDir(options.dataDir)
    const manager = new LogManager(options, emptyRecoveryStats(clean))
    try {
      await manager.loadAll(clean)
    } catch (err) {
      if (manager.ownsCache) await manager.cache.close()
      throw err
    }
    manager.logger.info({ dataDir: options.dataDir, logs: manager.logs.size, ...manager.recoveryStats }, 'logs loaded')
    return manager
  }

  private async loadAll(clean: boolean): Promise<void> {
    const recoveryPoints = clean
      ? new Map<string, bigint>()
      : await this.readOffsets(
          RECOVERY_POINT_CHECKPOINT_FILE,
          'recovery-point checkpoint unreadable, recovering every segment',
        )
    const starts = await this.readOffsets(
      LOG_START_OFFSET_CHECKPOINT_FILE,
      'log-start-offset checkpoint unreadable, log start offsets fall back to the first segments',
    )
    const dirty = await this.readOffsets(
      CLEANER_OFFSET_CHECKPOINT_FILE,
      'cleaner-offset checkpoint unreadable, compaction restarts from the log start',
    )
    const entries = await fs.readdir(this.dataDir, { withFileTypes: true })
    const todo: Array<{ topic: string; partition: number }> = []
    for (const e of entries) {
      if (!e.isDirectory()) continue
      if (e.name.endsWith(DELETED_DIR_SUFFIX)) {
        await fs.rm(path.join(this.dataDir, e.name), { recursive: true, force: true })
        continue
      }
      const parsed = parsePartitionDirName(e.name)
      if (parsed !== undefined) todo.push(parsed)
    }
    await boundedEach(todo, LOAD_CONCURRENCY, async ({ topic, partition }) => {
      const key = partitionDirName(topic, partition)
      const rp = clean ? undefined : (recoveryPoints.get(key) ?? 0n)
      this.logs.set(key, await this.load(topic, partition, this.defaultConfig, rp, starts.get(key), dirty.get(key)))
    })
  }

  private async load(
    topic: string,
    partition: number,
    config: LogConfig,
    recoveryPoint: bigint | undefined,
    logStartOffset?: bigint,
    firstDirtyOffset?: bigint,
  ): Promise<PartitionLog> {
    const dir = path.join(this.dataDir, partitionDirName(topic, partition))
    const logger = this.logger.child({ component: 'log', topic, partition })
    const loaded = await loadPartitionDir({
      dir,
      cache: this.cache,
      logger,
      indexIntervalBytes: config.indexIntervalBytes,
      recoveryPoint,
      stats: this.recoveryStats,
    })
    return new PartitionLog({
      dir,
      topic,
      partition,
      config,
      cache: this.cache,
      logger,
      ...loaded,
      onRecoveryPointLowered: () => this.checkpointRecoveryPoints(),
      logStartOffset,
      firstDirtyOffset,
      sync: this.sync,
      deleter: this.deleter,
      onLogStartOffsetChanged: () => this.logStartCheckpoint.request(),
    })
  }

  private async readOffsets(name: string, unreadable: string): Promise<OffsetMap> {
    const file = path.join(this.dataDir, name)
    const read = await readCheckpointFile(file, 3)
    const points: OffsetMap = new Map()
    if (read.kind === 'corrupt') this.logger.warn({ file, reason: read.reason }, unreadable)
    if (read.kind !== 'ok') return points
    for (const [topic, partition, offset] of read.entries) {
      const value = parseOffsetField(offset!)
      if (value !== undefined && /^\d+$/.test(partition!))
        points.set(partitionDirName(topic!, Number(partition)), value)
    }
    return points
  }

  getLog(topic: string, partition: number): PartitionLog | undefined {
    return this.logs.get(partitionDirName(topic, partition))
  }

  /** The log of a partition replica, created empty if this data dir has none; applies `config`. */
  async getOrCreateLog(topic: string, partition: number, config: LogConfig): Promise<PartitionLog> {
    this.assertOpen()
    const key = partitionDirName(topic, partition)
    const existing = this.logs.get(key)
    if (existing !== undefined) {
      existing.updateConfig(config)
      return existing
    }
    const pending = this.creating.get(key)
    if (pending !== undefined) {
      const log = await pending
      log.updateConfig(config)
      return log
    }
    const creation = (async () => {
      const dir = path.join(this.dataDir, key)
      await fs.mkdir(dir, { recursive: true })
      // The directory must survive a crash before anything written into it can (fsync mode).
      await this.cache.withSlot(() => fsyncDir(this.dataDir))
      await this.cache.evictUnder(dir + path.sep)
      // A directory that already exists without being loaded is untrusted: recover it fully.
      const log = await this.load(topic, partition, config, 0n)
      this.logs.set(key, log)
      return log
    })()
    this.creating.set(key, creation)
    try {
      return await creation
    } finally {
      this.creating.delete(key)
    }
  }

  /** Closes the log and removes its directory (renamed away first, so a crash never leaves half of it). */
  async deleteLog(topic: string, partition: number): Promise<void> {
    this.assertOpen()
    const key = partitionDirName(topic, partition)
    await this.creating.get(key)?.catch(() => undefined)
    const log = this.logs.get(key)
    this.logs.delete(key)
    const dir = path.join(this.dataDir, key)
    if (log !== undefined) await log.discard()
    await this.cache.evictUnder(dir + path.sep)
    const doomed = `${dir}.${randomUUID()}${DELETED_DIR_SUFFIX}`
    try {
      await fs.rename(dir, doomed)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
      throw err
    }
    await fsyncDir(this.dataDir)
    await fs.rm(doomed, { recursive: true, force: true })
    await this.checkpointRecoveryPoints()
    // A re-created partition must not inherit this one's start or clean offsets at the next start.
    await this.logStartCheckpoint.request()
    await this.writeOffsetCheckpoint(CLEANER_OFFSET_CHECKPOINT_FILE)
    this.logger.info({ topic, partition }, 'log deleted')
  }

  /** This manager's data dir, as a list (the LogStore view shared with LogDirs). */
  get dataDirs(): readonly string[] {
    return [this.dataDir]
  }

  /** Logs held, including ones being created (placement counts them). */
  get logCount(): number {
    return this.logs.size + this.creating.size
  }

  listLogs(): Array<{ topic: string; partition: number }> {
    return [...this.logs.values()].map((l) => ({ topic: l.topic, partition: l.partition }))
  }

  /** Writes every log's recovery point to the checkpoint file (also done by close). */
  async checkpointRecoveryPoints(): Promise<void> {
    await this.writeOffsetCheckpoint(RECOVERY_POINT_CHECKPOINT_FILE, true)
  }

  /** Writes the three checkpoints whose content changed since they were last written (maintenance, close). */
  async checkpointAll(): Promise<void> {
    for (const name of [
      RECOVERY_POINT_CHECKPOINT_FILE,
      LOG_START_OFFSET_CHECKPOINT_FILE,
      CLEANER_OFFSET_CHECKPOINT_FILE,
    ]) {
      await this.writeOffsetCheckpoint(name)
    }
  }

  private checkpointEntries(name: string): string[][] {
    const logs = [...this.logs.values()]
    switch (name) {
      case RECOVERY_POINT_CHECKPOINT_FILE:
        return logs.map((l) => [l.topic, String(l.partition), l.recoveryPoint.toString()])
      case LOG_START_OFFSET_CHECKPOINT_FILE:
        return logs
          .filter((l) => l.logStartOffset > l.segmentList[0]!.baseOffset)
          .map((l) => [l.topic, String(l.partition), l.logStartOffset.toString()])
      default:
        return logs
          .filter((l) => l.firstDirtyOffset > l.logStartOffset)
          .map((l) => [l.topic, String(l.partition), l.firstDirtyOffset.toString()])
    }
  }

  /** Writes checkpoint `name` from the logs' current values, unless unchanged (and not `force`). */
  private async writeOffsetCheckpoint(name: string, force = false): Promise<void> {
    await this.checkpointQueue.run(async () => {
      const entries = this.checkpointEntries(name)
      const signature = entries.map((e) => e.join(' ')).join('\n')
      if (!force && this.written.get(name) === signature) return
      await this.cache.withSlot(() => writeCheckpointFile(path.join(this.dataDir, name), entries))
      this.written.set(name, signature)
    })
  }

  /** A compactor for this data dir's logs (sharing its file-handle budget). */
  createCleaner(options: Omit<LogCleanerOptions, 'cache' | 'logger'> = {}): LogCleaner {
    return new LogCleaner({ ...options, cache: this.cache, logger: this.logger.child({ component: 'log-cleaner' }) })
  }

  /** Group-commit rounds shared by this data dir's fsync-mode appends. @internal (tests) */
  get syncRounds(): number {
    return this.sync.rounds
  }

  /** Open file handles right now / at most so far. @internal (tests) */
  get openFileCount(): number {
    return this.cache.openCount
  }
  get openFileCountMax(): number {
    return this.cache.openCountMax
  }

  /** Flushes every log, writes the recovery-point checkpoint, then the clean-shutdown marker. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await Promise.all([...this.creating.values()].map((p) => p.catch(() => undefined)))
    const logs = [...this.logs.values()]
    const results = await Promise.allSettled(logs.map((l) => l.close()))
    const failed = results.some((r) => r.status === 'rejected') || logs.some((l) => l.isFailed)
    try {
      await this.deleter.flush()
      await this.checkpointRecoveryPoints()
      await this.writeOffsetCheckpoint(LOG_START_OFFSET_CHECKPOINT_FILE, true)
      await this.writeOffsetCheckpoint(CLEANER_OFFSET_CHECKPOINT_FILE, true)
      if (failed) {
        this.logger.error(
          { dataDir: this.dataDir },
          'a log failed; not writing the clean-shutdown marker so the next start recovers',
        )
      } else {
        const marker = path.join(this.dataDir, CLEAN_SHUTDOWN_FILE)
        const fh = await fs.open(marker, 'w')
        await fh.sync().finally(() => fh.close())
        await fsyncDir(this.dataDir)
      }
    } finally {
      if (this.ownsCache) await this.cache.close()
    }
    this.logger.info({ dataDir: this.dataDir, logs: logs.length, clean: !failed }, 'logs closed')
  }

  /** Releases file handles without flushing, checkpointing or the marker: a simulated crash. @internal (tests) */
  async abandonForTesting(): Promise<void> {
    this.closed = true
    await Promise.all([...this.logs.values()].map((l) => l.abandon()))
    if (this.ownsCache) await this.cache.close()
    await this.deleter.abandon()
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('log manager is closed')
  }
}
