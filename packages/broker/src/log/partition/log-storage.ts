/**
 * The storage layer under PartitionLog (partition-log.ts): the segment list and its files, the
 * log's single-writer queue, rolling and activating segments, flush and fsync (the recovery
 * point, the data dir's group commit), close. Split from the append/read layer and from the
 * segment-set lifecycle (log-lifecycle.ts) so each file holds one concept; PartitionLog is the
 * only concrete class.
 *
 * Invariants:
 *   - one writer: every change of the segment list or of a segment's contents runs as a task of
 *     `writes`, the log's one SerialQueue. The replica (Partition) runs its appends, truncations
 *     and epoch stamps as tasks through `exclusively`, with its own checks inside the same task;
 *     the log's other writers (retention, compaction swap, flush, close) queue themselves. There
 *     is no second queue above or below this one. A synchronous write while the queue is idle
 *     (`writerIdle`) is a task of it too: nothing runs before it returns;
 *   - the recovery point only moves past data that was fdatasynced together with its indexes;
 *   - a `flush: 'fsync'` write is acknowledged only after the group commit synced it.
 */
import { SluiceError } from '@sluice/protocol'
import fs from 'node:fs/promises'
import type { Logger } from 'pino'
import type { FileHandleCache } from '../io/file-handle-cache.js'
import { fsyncDir } from '../io/checkpoint-file.js'
import { DataDirSync } from '../io/data-dir-sync.js'
import type { DelayedDeleter } from '../io/delayed-deleter.js'
import type { LeaderEpochCache } from './leader-epoch-cache.js'
import type { LogConfig } from '../log-config.js'
import { segmentPaths } from '../segment/log-files.js'
import { Segment } from '../segment/segment.js'
import { emptyRecoveryStats, recoverSegment } from '../segment/segment-recovery.js'
import { SerialQueue } from '@sluice/server-kit'

export interface PartitionLogInit {
  dir: string
  topic: string
  partition: number
  config: LogConfig
  cache: FileHandleCache
  logger: Logger
  /** Non-empty, ascending base offsets; the last is the active segment. */
  segments: Segment[]
  epochs: LeaderEpochCache
  recoveryPoint: bigint
  /** Called after truncation lowered the recovery point, so the owner rewrites its checkpoint. */
  onRecoveryPointLowered?: () => Promise<void>
  /** From the log-start-offset checkpoint; clamped to [first segment base, logEndOffset]. */
  logStartOffset?: bigint
  /** From the cleaner-offset checkpoint: where the not-yet-compacted part starts. */
  firstDirtyOffset?: bigint
  /** Shared group commit of the data dir (default: one of its own). */
  sync?: DataDirSync
  /** Removes renamed-away segment files later (default: at once). */
  deleter?: DelayedDeleter
  /** Called after logStartOffset moved, so the owner rewrites its checkpoint. */
  onLogStartOffsetChanged?: () => Promise<void>
  /** The directory holds OFFSET_GAPS_MARKER_FILE: recovery tolerates offset gaps. */
  mayHaveGaps?: boolean
}

export abstract class LogStorage {
  readonly dir: string
  readonly topic: string
  readonly partition: number
  protected config: LogConfig
  protected segments: Segment[]
  protected readonly cache: FileHandleCache
  protected readonly logger: Logger
  protected readonly epochs: LeaderEpochCache
  /** The log's one writer queue (see the module comment). */
  private readonly writes = new SerialQueue()
  private readonly sync: DataDirSync
  private syncCount = 0
  /** Segments whose .log has writes not yet fdatasynced. */
  protected readonly dirty = new Set<Segment>()
  protected rollFlushes: Promise<void> = Promise.resolve()
  protected recoveryPointOffset: bigint
  private closed = false
  /** Set by an I/O error during a write; the log then refuses writes until reopened. */
  protected failed = false
  protected readonly onRecoveryPointLowered: (() => Promise<void>) | undefined
  protected readonly onLogStartOffsetChanged: (() => Promise<void>) | undefined
  protected readonly deleter: DelayedDeleter | undefined
  protected logStartOffsetValue: bigint
  protected firstDirty: bigint
  /** Bumped by every change of the segment list, their contents or the config. */
  protected changes = 0
  protected epochsUnsaved = false
  /** A segment file was created since the last group-commit sync: its directory entry needs an fsync too. */
  protected dirNeedsSync = false
  /** OFFSET_GAPS_MARKER_FILE exists (see noteOffsetGaps). */
  protected mayHaveGaps: boolean

  constructor(init: PartitionLogInit) {
    if (init.segments.length === 0) throw new Error('a partition log needs at least one segment')
    this.dir = init.dir
    this.topic = init.topic
    this.partition = init.partition
    this.config = { ...init.config }
    this.segments = init.segments
    this.cache = init.cache
    this.logger = init.logger
    this.epochs = init.epochs
    this.recoveryPointOffset = init.recoveryPoint
    this.onRecoveryPointLowered = init.onRecoveryPointLowered
    this.onLogStartOffsetChanged = init.onLogStartOffsetChanged
    this.sync = init.sync ?? new DataDirSync()
    this.deleter = init.deleter
    this.mayHaveGaps = init.mayHaveGaps === true
    const first = this.segments[0]!.baseOffset
    const end = this.active.nextOffset
    const wanted = init.logStartOffset !== undefined && init.logStartOffset > first ? init.logStartOffset : first
    this.logStartOffsetValue = wanted > end ? end : wanted
    this.firstDirty =
      init.firstDirtyOffset !== undefined && init.firstDirtyOffset > this.logStartOffsetValue
        ? init.firstDirtyOffset < end
          ? init.firstDirtyOffset
          : end
        : this.logStartOffsetValue
  }

  get logEndOffset(): bigint {
    return this.active.nextOffset
  }
  /** Offset below which data and indexes are known to be on disk. */
  get recoveryPoint(): bigint {
    return this.recoveryPointOffset
  }
  get isFailed(): boolean {
    return this.failed
  }
  /** Group-commit syncs of this log so far. @internal (tests) */
  get groupCommitSyncCount(): number {
    return this.syncCount
  }

  protected get active(): Segment {
    return this.segments[this.segments.length - 1]!
  }

  /**
   * Runs `task` as the log's single writer, after every write queued before it. The replica
   * (Partition) runs its leader and follower appends, truncations and epoch stamps this way, so
   * the checks it makes inside `task` (role, producer state) hold for the write that follows them.
   * The methods documented "inside exclusively()" must only be called from such a task (or by a
   * test that awaits each call before the next).
   */
  exclusively<T>(task: () => Promise<T>): Promise<T> {
    return this.writes.run(task)
  }

  /**
   * No task of the write queue is queued or running. A synchronous caller may then write at once
   * as the log's single writer (appendPlannedSync, appendReplicatedSync): nothing can start
   * before it returns. Spares the common append the queue's promises (issue 16).
   */
  get writerIdle(): boolean {
    return this.writes.size === 0
  }

  /**
   * `flush: 'fsync'`: the data dir's group commit, which fdatasyncs what this log wrote. Callers
   * test the config first, so an append without fsync costs no extra await.
   */
  protected syncWrites(): Promise<void> {
    return this.sync.request(this)
  }

  /** Closes the active segment and starts a new one at `baseOffset`; the old one is fsynced in the background. */
  protected async roll(baseOffset: bigint): Promise<Segment> {
    const old = this.active
    await old.finalize()
    this.dirty.add(old)
    const seg = await Segment.create(baseOffset, segmentPaths(this.dir, baseOffset), this.cache)
    this.segments = [...this.segments, seg]
    this.logger.debug({ baseOffset: baseOffset.toString(), previousSizeBytes: old.sizeBytes }, 'segment rolled')
    // Like Kafka, flush the closed segment asynchronously; this is what advances the recovery point.
    this.rollFlushes = this.rollFlushes
      .then(async () => {
        if (!this.segments.includes(old)) return
        await old.flush()
        this.dirty.delete(old)
        const allBelowFlushed = [...this.dirty].every((s) => s.baseOffset >= baseOffset)
        if (allBelowFlushed && baseOffset > this.recoveryPointOffset) this.recoveryPointOffset = baseOffset
      })
      .catch((err) => {
        this.logger.warn({ err, segment: old.paths.log }, 'flush of rolled segment failed')
      })
    return seg
  }

  /** Makes `seg` (the last segment) ready for appends: its indexes in memory, rebuilt if bad. */
  protected async activate(seg: Segment): Promise<Segment> {
    if (await seg.loadActive()) return seg
    const stat = await fs.stat(seg.paths.log)
    this.logger.warn({ segment: seg.paths.log }, 'index of active segment is invalid, rebuilding')
    await recoverSegment(seg, stat.size, {
      cache: this.cache,
      logger: this.logger,
      indexIntervalBytes: this.config.indexIntervalBytes,
      stats: emptyRecoveryStats(false),
    })
    return seg
  }

  protected async deleteSegmentFiles(seg: Segment): Promise<void> {
    this.dirty.delete(seg)
    await seg.evictHandles()
    await Promise.all([seg.paths.log, seg.paths.index, seg.paths.timeIndex].map((f) => fs.rm(f, { force: true })))
  }

  /** fdatasync of everything written so far; advances the recovery point to logEndOffset. */
  async flush(): Promise<void> {
    await this.writes.run(async () => {
      this.assertOpen()
      await this.flushAll()
    })
  }

  private async flushAll(): Promise<void> {
    await this.rollFlushes
    const end = this.logEndOffset
    // Only segments written since their last flush; an idle log costs no fdatasync.
    for (const seg of [...this.dirty]) {
      await seg.flush()
      this.dirty.delete(seg)
    }
    this.recoveryPointOffset = end
  }

  /** Group-commit body (data-dir-sync.ts): fdatasync the .log of every segment written since the last sync. @internal */
  async syncDirtyLogs(): Promise<void> {
    this.syncCount++
    if (this.dirNeedsSync) {
      // fdatasync does not make a new file's name durable; without this a crash could lose a
      // whole acknowledged segment.
      this.dirNeedsSync = false
      try {
        await this.cache.withSlot(() => fsyncDir(this.dir))
      } catch (err) {
        this.dirNeedsSync = true
        throw storageError(err, 'fsync of the partition directory failed')
      }
    }
    const segs = [...this.dirty]
    for (const seg of segs) {
      try {
        await seg.flushLog()
      } catch (err) {
        if (this.segments.includes(seg)) {
          // Data whose fdatasync failed may be lost from the page cache: take the log offline.
          this.failed = true
          throw storageError(err, 'fdatasync failed')
        }
      }
    }
  }

  /** Flushes, writes the closing time-index entry, and releases file handles. */
  async close(): Promise<void> {
    await this.writes.run(async () => {
      if (this.closed) return
      try {
        if (!this.failed) {
          if (await this.active.finalize()) this.dirty.add(this.active)
          await this.flushAll()
          if (this.epochsUnsaved) await this.epochs.persist()
        }
      } finally {
        this.closed = true
        await Promise.all(this.segments.map((s) => s.evictHandles()))
      }
    })
  }

  /** Closes without flushing once queued writes are done (the log is being deleted). @internal */
  async discard(): Promise<void> {
    await this.writes.run(async () => {
      await this.rollFlushes
      await this.abandon()
    })
  }

  /** Drops file handles without flushing or checkpointing, as a crash would. @internal (tests) */
  async abandon(): Promise<void> {
    this.closed = true
    await Promise.all(this.segments.map((s) => s.evictHandles()))
  }

  protected assertOpen(): void {
    if (this.closed) throw new SluiceError('KAFKA_STORAGE_ERROR', `log ${this.topic}-${this.partition} is closed`)
  }

  protected assertWritable(): void {
    this.assertOpen()
    if (this.failed)
      throw new SluiceError('KAFKA_STORAGE_ERROR', `log ${this.topic}-${this.partition} is offline after an I/O error`)
  }
}

/** An I/O failure as the retriable KAFKA_STORAGE_ERROR (a SluiceError passes through unchanged). */
export function storageError(err: unknown, what: string): SluiceError {
  if (err instanceof SluiceError) return err
  return new SluiceError('KAFKA_STORAGE_ERROR', `${what}: ${(err as Error).message}`, {}, { cause: err })
}
