/**
 * One partition replica's log (DESIGN.md §4, docs/internal-apis.md `PartitionLog`): an ordered
 * list of segments, the last one active. Invariants:
 *   - one writer: appends, truncation, flush and close run through a SerialQueue; reads run
 *     concurrently over a snapshot of the segment list and see only completed appends;
 *   - offsets strictly increase; appends are contiguous (each batch starts at the previous
 *     batch's lastOffset + 1), but compaction leaves gaps in closed segments; logEndOffset is the
 *     active segment's next offset;
 *   - logStartOffset (>= the first segment's base, <= logEndOffset) only moves forward, except
 *     when truncation empties the log; retention and DeleteRecords move it, reads below it fail
 *     with OFFSET_OUT_OF_RANGE, and the owner persists it (onLogStartOffsetChanged);
 *   - segments leave the list copy-on-write and are renamed to `.deleted` before their files are
 *     removed after a delay, so reads over an older snapshot finish;
 *   - nothing is written for an append that fails validation. A write that fails for lack of
 *     space (ENOSPC/EDQUOT) is undone completely (files cut back to the last published state) and
 *     the log stays writable; any other I/O error during a write marks the log failed (later
 *     writes throw KAFKA_STORAGE_ERROR, close skips the clean marker);
 *   - the recovery point only moves past data that was fdatasynced together with its indexes.
 * Idle, the object holds the segment list and a few numbers: no open file, timer or buffer.
 */
import { SluiceError, stampBatch, validateBatches, type BatchSpan } from '@sluice/protocol'
import fs from 'node:fs/promises'
import type { Logger } from 'pino'
import { assertSpansTile, shouldRoll, UnexpectedAppendOffsetError, type PlannedBatch, type SegmentFill } from './append-plan.js'
import type { FileHandleCache } from '../io/file-handle-cache.js'
import { fsyncDir } from '../io/checkpoint-file.js'
import { DataDirSync } from '../io/data-dir-sync.js'
import type { DelayedDeleter } from '../io/delayed-deleter.js'
import { indexBatch, PendingIndexEntries, type IndexCursor } from '../segment/index-cursor.js'
import type { EpochEntry, LeaderEpochCache } from './leader-epoch-cache.js'
import type { LogConfig } from '../log-config.js'
import path from 'node:path'
import { OFFSET_GAPS_MARKER_FILE, segmentPaths } from '../segment/log-files.js'
import { findOffsetForTimestamp, readBatches, type ReadOptions, type ReadResult } from './log-reader.js'
import { planRetention } from '../cleaner/retention.js'
import { Segment } from '../segment/segment.js'
import { emptyRecoveryStats, recoverSegment } from '../segment/segment-recovery.js'
import { SerialQueue } from '../serial-queue.js'

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

/** What retention removed. */
export interface RetentionResult {
  segmentsDeleted: number
  bytesDeleted: number
  /** Earliest time at which time-based retention could delete more without other changes. */
  recheckAt: number
}

export class PartitionLog {
  readonly dir: string
  readonly topic: string
  readonly partition: number
  private config: LogConfig
  private segments: Segment[]
  private readonly cache: FileHandleCache
  private readonly logger: Logger
  private readonly epochs: LeaderEpochCache
  private readonly queue = new SerialQueue()
  private readonly sync: DataDirSync
  private syncCount = 0
  /** Segments whose .log has writes not yet fdatasynced. */
  private readonly dirty = new Set<Segment>()
  private rollFlushes: Promise<void> = Promise.resolve()
  private recoveryPointOffset: bigint
  private closed = false
  /** Set by an I/O error during a write; the log then refuses writes until reopened. */
  private failed = false
  private readonly onRecoveryPointLowered: (() => Promise<void>) | undefined
  private readonly onLogStartOffsetChanged: (() => Promise<void>) | undefined
  private readonly deleter: DelayedDeleter | undefined
  private logStartOffsetValue: bigint
  private firstDirty: bigint
  /** Bumped by every change of the segment list, their contents or the config. */
  private changes = 0
  private epochsUnsaved = false
  /** A segment file was created since the last group-commit sync: its directory entry needs an fsync too. */
  private dirNeedsSync = false
  /** OFFSET_GAPS_MARKER_FILE exists (see noteOffsetGaps). */
  private mayHaveGaps: boolean

  /** @internal built by LogManager */
  constructor (init: PartitionLogInit) {
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
    const wanted = init.logStartOffset !== undefined && init.logStartOffset > first ? init.logStartOffset : first
    this.logStartOffsetValue = wanted > this.logEndOffset ? this.logEndOffset : wanted
    this.firstDirty = init.firstDirtyOffset !== undefined && init.firstDirtyOffset > this.logStartOffsetValue
      ? (init.firstDirtyOffset < this.logEndOffset ? init.firstDirtyOffset : this.logEndOffset)
      : this.logStartOffsetValue
  }

  get logStartOffset (): bigint { return this.logStartOffsetValue }
  get logEndOffset (): bigint { return this.active.nextOffset }
  /** Offset below which data and indexes are known to be on disk. */
  get recoveryPoint (): bigint { return this.recoveryPointOffset }
  get currentConfig (): Readonly<LogConfig> { return this.config }
  get isFailed (): boolean { return this.failed }
  /** Base offsets of the segments, oldest first. @internal (tests) */
  get segmentBaseOffsets (): bigint[] { return this.segments.map(s => s.baseOffset) }
  /** Group-commit syncs of this log so far. @internal (tests) */
  get groupCommitSyncCount (): number { return this.syncCount }
  /** First offset not yet compacted (the cleaner-offset checkpoint). */
  get firstDirtyOffset (): bigint { return this.firstDirty }
  /** Changes when segments, their contents or the config change (maintenance skips unchanged logs). */
  get changeCount (): number { return this.changes }
  /** Snapshot of the segments, oldest first; the last is active. @internal (log-cleaner) */
  get segmentList (): readonly Segment[] { return this.segments }
  get sizeBytes (): number {
    let total = 0
    for (const s of this.segments) total += s.sizeBytes
    return total
  }

  /** Applies a new config (topic config change); appends use it from the next one, retention and compaction from their next run. */
  updateConfig (config: LogConfig): void {
    const changed = Object.keys(config).some(k => config[k as keyof LogConfig] !== this.config[k as keyof LogConfig])
    this.config = { ...config }
    if (changed) this.changes++
  }

  private get active (): Segment { return this.segments[this.segments.length - 1]! }

  async appendAsLeader (batches: Buffer, spans: readonly BatchSpan[], leaderEpoch: number):
    Promise<{ firstOffset: bigint, lastOffset: bigint, maxTimestamp: bigint }> {
    const result = await this.queue.run(async () => {
      this.assertWritable()
      assertSpansTile(batches, spans)
      for (const s of spans) {
        if (s.sizeBytes > this.config.maxMessageBytes) {
          throw new SluiceError('MESSAGE_TOO_LARGE', `batch of ${s.sizeBytes} bytes exceeds max.message.bytes ${this.config.maxMessageBytes}`,
            { sizeBytes: s.sizeBytes, maxMessageBytes: this.config.maxMessageBytes })
        }
      }
      const firstOffset = this.logEndOffset
      let next = firstOffset
      let maxTimestamp = -1n
      const plan: PlannedBatch[] = spans.map(s => {
        const baseOffset = next
        next = baseOffset + BigInt(s.lastOffsetDelta) + 1n
        if (s.maxTimestamp > maxTimestamp) maxTimestamp = s.maxTimestamp
        return { position: s.position, sizeBytes: s.sizeBytes, baseOffset, lastOffset: next - 1n, maxTimestamp: s.maxTimestamp, partitionLeaderEpoch: leaderEpoch }
      })
      for (const b of plan) stampBatch(batches, b.position, b.baseOffset, leaderEpoch)
      await this.write(batches, plan)
      await this.noteEpochs(plan)
      return { firstOffset, lastOffset: next - 1n, maxTimestamp }
    })
    if (this.config.flush === 'fsync') await this.sync.request(this)
    return result
  }

  async appendAsFollower (batches: Buffer): Promise<{ firstOffset: bigint, lastOffset: bigint }> {
    const result = await this.queue.run(async () => {
      this.assertWritable()
      // Throws CORRUPT_MESSAGE / INVALID_BATCH before anything is written.
      const spans = validateBatches(batches)
      let expected = this.logEndOffset
      let gapped = false
      const plan: PlannedBatch[] = spans.map(s => {
        const baseOffset = batches.readBigInt64BE(s.position)
        // A gap is legal (the leader's log was compacted there); an overlap never is.
        if (baseOffset < expected) throw new UnexpectedAppendOffsetError(expected, baseOffset)
        if (baseOffset > expected) gapped = true
        expected = baseOffset + BigInt(s.lastOffsetDelta) + 1n
        return { position: s.position, sizeBytes: s.sizeBytes, baseOffset, lastOffset: expected - 1n, maxTimestamp: s.maxTimestamp, partitionLeaderEpoch: s.partitionLeaderEpoch }
      })
      if (gapped) await this.noteOffsetGaps()
      await this.write(batches, plan)
      await this.noteEpochs(plan)
      return { firstOffset: plan[0]!.baseOffset, lastOffset: expected - 1n }
    })
    if (this.config.flush === 'fsync') await this.sync.request(this)
    return result
  }

  /** Writes planned batches, rolling between groups as append-plan.ts decides. */
  private async write (buf: Buffer, plan: readonly PlannedBatch[]): Promise<void> {
    const segmentCount = this.segments.length
    const endBefore = this.logEndOffset
    this.changes++
    try {
      let seg = await this.activate(this.active)
      let group = await this.startGroup(seg)
      for (let i = 0; i < plan.length; i++) {
        const b = plan[i]!
        if (shouldRoll(group.fill, b, this.config)) {
          if (i > group.from) await this.commitGroup(seg, buf, plan, group.from, i, group.pending, group.cursor)
          seg = await this.roll(b.baseOffset)
          group = await this.startGroup(seg, i)
        }
        indexBatch(group.cursor, group.pending, seg.baseOffset, group.fill.sizeBytes, b.sizeBytes, b.lastOffset,
          b.maxTimestamp, this.config.indexIntervalBytes)
        if (group.fill.sizeBytes === 0) group.fill.firstBatchMaxTimestamp = b.maxTimestamp
        group.fill.sizeBytes += b.sizeBytes
        group.fill.offsetIndexEntries = seg.offsetIndexEntries + group.pending.offsetCount
        group.fill.timeIndexEntries = seg.timeIndexEntries + group.pending.timeCount
      }
      await this.commitGroup(seg, buf, plan, group.from, plan.length, group.pending, group.cursor)
    } catch (err) {
      if (isDiskFull(err) && await this.undoAppend(segmentCount, endBefore)) {
        this.logger.warn({ err, logEndOffset: endBefore.toString() }, 'append failed: disk full; nothing of it was kept')
        throw new SluiceError('KAFKA_STORAGE_ERROR', `disk full: the append was not written (${(err as Error).message})`,
          { reason: 'disk-full' }, { cause: err })
      }
      this.failed = true
      this.logger.error({ err }, 'log write failed; the log is offline until restart')
      throw storageError(err, 'append failed')
    }
  }

  /**
   * Undoes a failed append: segments it rolled to are removed and the previous active segment is
   * cut back to its published state and to `endOffset`. False if that failed too.
   */
  private async undoAppend (segmentCount: number, endOffset: bigint): Promise<boolean> {
    try {
      const added = this.segments.slice(segmentCount)
      if (added.length > 0) {
        this.segments = this.segments.slice(0, segmentCount)
        for (const seg of added) await this.deleteSegmentFiles(seg)
      }
      const last = this.active
      await last.discardUnpublished()
      await this.activate(last)
      if (last.nextOffset > endOffset) await last.truncateTo(endOffset)
      return true
    } catch (err) {
      this.logger.error({ err }, 'could not undo a failed append')
      return false
    }
  }

  private async startGroup (seg: Segment, from = 0): Promise<{ from: number, fill: SegmentFill, pending: PendingIndexEntries, cursor: IndexCursor }> {
    const fill: SegmentFill = {
      baseOffset: seg.baseOffset,
      sizeBytes: seg.sizeBytes,
      firstBatchMaxTimestamp: await seg.firstTimestamp(),
      offsetIndexEntries: seg.offsetIndexEntries,
      timeIndexEntries: seg.timeIndexEntries,
    }
    return { from, fill, pending: new PendingIndexEntries(), cursor: { ...seg.active!.cursor } }
  }

  private async commitGroup (seg: Segment, buf: Buffer, plan: readonly PlannedBatch[], from: number, to: number,
    pending: PendingIndexEntries, cursor: IndexCursor): Promise<void> {
    this.dirty.add(seg)
    if (seg.sizeBytes === 0) this.dirNeedsSync = true
    await seg.append(buf, plan, from, to, pending, cursor)
  }

  /** Closes the active segment and starts a new one at `baseOffset`; the old one is fsynced in the background. */
  private async roll (baseOffset: bigint): Promise<Segment> {
    const old = this.active
    await old.finalize()
    this.dirty.add(old)
    const seg = await Segment.create(baseOffset, segmentPaths(this.dir, baseOffset), this.cache)
    this.segments = [...this.segments, seg]
    this.logger.debug({ baseOffset: baseOffset.toString(), previousSizeBytes: old.sizeBytes }, 'segment rolled')
    // Like Kafka, flush the closed segment asynchronously; this is what advances the recovery point.
    this.rollFlushes = this.rollFlushes.then(async () => {
      if (!this.segments.includes(old)) return
      await old.flush()
      this.dirty.delete(old)
      const allBelowFlushed = [...this.dirty].every(s => s.baseOffset >= baseOffset)
      if (allBelowFlushed && baseOffset > this.recoveryPointOffset) this.recoveryPointOffset = baseOffset
    }).catch(err => { this.logger.warn({ err, segment: old.paths.log }, 'flush of rolled segment failed') })
    return seg
  }

  /** Makes `seg` (the last segment) ready for appends: its indexes in memory, rebuilt if bad. */
  private async activate (seg: Segment): Promise<Segment> {
    if (await seg.loadActive()) return seg
    const stat = await fs.stat(seg.paths.log)
    this.logger.warn({ segment: seg.paths.log }, 'index of active segment is invalid, rebuilding')
    await recoverSegment(seg, stat.size, { cache: this.cache, logger: this.logger, indexIntervalBytes: this.config.indexIntervalBytes, stats: emptyRecoveryStats(false) })
    return seg
  }

  /** Adds epoch-cache entries for batches whose epoch is newer than the latest one. */
  private async noteEpochs (plan: readonly PlannedBatch[]): Promise<void> {
    let changed = false
    for (const b of plan) {
      const latest = this.epochs.latestEpoch
      if (latest === undefined || b.partitionLeaderEpoch > latest) changed = this.epochs.assign(b.partitionLeaderEpoch, b.baseOffset) || changed
    }
    if (changed || this.epochsUnsaved) await this.persistEpochs()
  }

  /** The epoch cache lives in memory; a failed save (disk full) is retried with the next change or at close. */
  private async persistEpochs (): Promise<void> {
    try {
      await this.epochs.persist()
      this.epochsUnsaved = false
    } catch (err) {
      this.epochsUnsaved = true
      this.logger.warn({ err }, 'could not save the leader-epoch checkpoint; will retry')
    }
  }

  async read (offset: bigint, maxBytes: number, options: ReadOptions = {}): Promise<ReadResult> {
    this.assertOpen()
    const segments = this.segments
    const start = this.logStartOffsetValue
    const end = segments[segments.length - 1]!.nextOffset
    if (offset < start || offset > end) {
      throw new SluiceError('OFFSET_OUT_OF_RANGE', `offset ${offset} is outside the log range [${start}, ${end}]`,
        { offset: offset.toString(), logStartOffset: start.toString(), logEndOffset: end.toString() })
    }
    if (offset === end || (options.maxOffset !== undefined && offset >= options.maxOffset)) {
      return { records: Buffer.alloc(0), firstOffset: offset }
    }
    try {
      return await readBatches(segments, offset, Math.max(0, maxBytes), options)
    } catch (err) {
      throw storageError(err, 'read failed')
    }
  }

  async offsetForTimestamp (ts: bigint): Promise<{ offset: bigint, timestamp: bigint } | undefined> {
    this.assertOpen()
    try {
      const found = await findOffsetForTimestamp(this.segments, ts)
      if (found === undefined) return undefined
      const start = this.logStartOffset
      return found.offset < start ? { offset: start, timestamp: found.timestamp } : found
    } catch (err) {
      throw storageError(err, 'timestamp lookup failed')
    }
  }

  /** (epoch, startOffset) pairs of the leader-epoch cache, oldest first. */
  leaderEpochs (): EpochEntry[] {
    return this.epochs.all
  }

  /**
   * KIP-101/279: the largest epoch <= `epoch` this log knows and the offset where it ends (the
   * next epoch's start, or logEndOffset for the latest). `{ epoch: -1, endOffset: -1n }` when the
   * requested epoch is newer than any known (Kafka's UNDEFINED_EPOCH / UNDEFINED_EPOCH_OFFSET).
   */
  endOffsetForEpoch (epoch: number): { epoch: number, endOffset: bigint } {
    return this.epochs.endOffsetFor(epoch, this.logEndOffset)
  }

  /** Records that `epoch` starts at `startOffset` (default: logEndOffset), as a new leader does. */
  async assignLeaderEpoch (epoch: number, startOffset?: bigint): Promise<void> {
    await this.queue.run(async () => {
      this.assertWritable()
      if (this.epochs.assign(epoch, startOffset ?? this.logEndOffset)) await this.epochs.persist()
    })
  }

  /** Removes every batch holding an offset >= `offset`; below logStartOffset it empties the log and restarts it at `offset`. */
  async truncateTo (offset: bigint): Promise<void> {
    await this.queue.run(async () => {
      this.assertWritable()
      await this.rollFlushes
      if (offset >= this.logEndOffset) {
        // As Kafka does: still drop epoch entries at the log end. A replica that became leader
        // (stamping its epoch at its LEO) but wrote nothing must not keep that epoch as a follower.
        if (this.epochs.truncateFromEnd(this.logEndOffset)) await this.epochs.persist()
        return
      }
      this.changes++
      try {
        if (offset <= this.logStartOffset) {
          await this.truncateFully(offset)
        } else {
          const keep = this.segments.filter(s => s.baseOffset < offset)
          const drop = this.segments.filter(s => s.baseOffset >= offset)
          this.segments = keep
          for (const seg of drop) await this.deleteSegmentFiles(seg)
          const last = await this.activate(keep[keep.length - 1]!)
          await last.truncateTo(offset)
          this.dirty.add(last)
        }
      } catch (err) {
        this.failed = true
        throw storageError(err, 'truncation failed')
      }
      if (this.epochs.truncateFromEnd(this.logEndOffset)) await this.epochs.persist()
      if (this.firstDirty > this.logEndOffset) this.firstDirty = this.logEndOffset
      this.logger.info({ offset: offset.toString(), logEndOffset: this.logEndOffset.toString() }, 'log truncated')
      if (this.recoveryPointOffset > this.logEndOffset) {
        this.recoveryPointOffset = this.logEndOffset
        await this.onRecoveryPointLowered?.()
      }
    })
  }

  /**
   * Empties the log and restarts it at `offset` (Kafka's truncateFullyAndStartAt): a follower
   * whose whole log lies below the leader's log start offset (retention or DeleteRecords on the
   * leader) cannot fetch what it misses, so it starts over where the leader's log begins.
   */
  async truncateFullyAndStartAt (offset: bigint): Promise<void> {
    await this.queue.run(async () => {
      this.assertWritable()
      await this.rollFlushes
      this.changes++
      try {
        await this.truncateFully(offset)
      } catch (err) {
        this.failed = true
        throw storageError(err, 'truncation failed')
      }
      this.logger.info({ offset: offset.toString() }, 'log emptied and restarted at the leader\'s log start offset')
      this.recoveryPointOffset = offset
      await this.onRecoveryPointLowered?.()
    })
  }

  private async truncateFully (offset: bigint): Promise<void> {
    const old = this.segments
    for (const seg of old) await this.deleteSegmentFiles(seg)
    this.segments = [await Segment.create(offset, segmentPaths(this.dir, offset), this.cache)]
    if (this.epochs.clear()) await this.epochs.persist()
    const lsoChanged = this.logStartOffsetValue !== offset
    this.logStartOffsetValue = offset
    this.firstDirty = offset
    if (lsoChanged) await this.onLogStartOffsetChanged?.()
  }

  /**
   * Retention (retention.ts): deletes the leading segments that are past retention.ms or
   * retention.bytes (when cleanup.policy includes delete) or wholly below logStartOffset, never
   * beyond `highWatermark`; rolls first when the active segment itself must go.
   */
  async deleteRetainedSegments (now: number, highWatermark: bigint): Promise<RetentionResult> {
    return await this.queue.run(async () => {
      this.assertWritable()
      const plan = await planRetention(this.segments, this.config, { now, highWatermark, logStartOffset: this.logStartOffsetValue })
      if (plan.count === 0) return { segmentsDeleted: 0, bytesDeleted: 0, recheckAt: plan.recheckAt }
      try {
        if (plan.rollActive) {
          await this.activate(this.active)
          await this.roll(this.logEndOffset)
        }
        const doomed = this.segments.slice(0, plan.count)
        const bytes = doomed.reduce((n, seg) => n + seg.sizeBytes, 0)
        await this.removeSegments(doomed)
        this.logger.info({ segments: doomed.map(d => d.baseOffset.toString()), bytes, reasons: [...new Set(plan.reasons)],
          logStartOffset: this.logStartOffsetValue.toString() }, 'retention deleted segments')
        return { segmentsDeleted: doomed.length, bytesDeleted: bytes, recheckAt: plan.recheckAt }
      } catch (err) {
        this.failed = true
        throw storageError(err, 'retention failed')
      }
    })
  }

  /**
   * DeleteRecords: moves logStartOffset up to `offset` (records below it become unreadable at
   * once), deletes the segments wholly below it, persists the new start (owner's checkpoint) and
   * returns it (the low watermark). `offset` must not pass `highWatermark`.
   */
  async deleteRecordsBefore (offset: bigint, highWatermark: bigint): Promise<bigint> {
    return await this.queue.run(async () => {
      this.assertWritable()
      if (offset < 0n || offset > highWatermark || offset > this.logEndOffset) {
        throw new SluiceError('OFFSET_OUT_OF_RANGE', `cannot delete records before ${offset}: the high watermark is ${highWatermark}`,
          { offset: offset.toString(), highWatermark: highWatermark.toString() })
      }
      if (offset <= this.logStartOffsetValue) return this.logStartOffsetValue
      this.changes++
      this.logStartOffsetValue = offset
      try {
        const doomed: Segment[] = []
        for (let i = 0; i + 1 < this.segments.length && this.segments[i + 1]!.baseOffset <= offset; i++) doomed.push(this.segments[i]!)
        await this.removeSegments(doomed)
      } catch (err) {
        this.failed = true
        throw storageError(err, 'deleting records failed')
      }
      this.logger.info({ logStartOffset: offset.toString() }, 'records deleted')
      await this.onLogStartOffsetChanged?.()
      return offset
    })
  }

  /**
   * Takes leading closed segments out of the list (copy-on-write), renames their files to
   * `.deleted` and hands them to the delayed deleter; logStartOffset follows the new first segment.
   */
  private async removeSegments (doomed: readonly Segment[]): Promise<void> {
    if (doomed.length === 0) return
    this.changes++
    this.segments = this.segments.filter(s => !doomed.includes(s))
    const first = this.segments[0]!.baseOffset
    let lsoChanged = false
    if (first > this.logStartOffsetValue) {
      this.logStartOffsetValue = first
      lsoChanged = true
    }
    if (this.firstDirty < this.logStartOffsetValue) this.firstDirty = this.logStartOffsetValue
    if (this.recoveryPointOffset < first) this.recoveryPointOffset = first
    for (const seg of doomed) {
      this.dirty.delete(seg)
      const files = await seg.renameForDeletion()
      if (this.deleter !== undefined) await this.deleter.schedule(files)
      else await Promise.all(files.map(f => fs.rm(f, { force: true })))
    }
    if (lsoChanged) await this.onLogStartOffsetChanged?.()
  }

  /**
   * @internal log-cleaner: replaces `group` (consecutive closed segments, still in the log) by
   * the segment `install` puts in place (it commits the swap on disk and renames the old files
   * away, returning them). False, with nothing done, if the group changed meanwhile (retention,
   * truncation).
   */
  async replaceSegments (group: readonly Segment[],
    install: (old: readonly Segment[]) => Promise<{ segment: Segment, oldFiles: string[] }>): Promise<boolean> {
    return await this.queue.run(async () => {
      this.assertWritable()
      const at = this.segments.indexOf(group[0]!)
      if (at < 0 || at + group.length >= this.segments.length || group.some((g, i) => this.segments[at + i] !== g)) return false
      let installed: { segment: Segment, oldFiles: string[] }
      try {
        await this.noteOffsetGaps()
        installed = await install(group)
      } catch (err) {
        // The swap may be committed on disk; the next start completes it.
        this.failed = true
        throw storageError(err, 'installing a compacted segment failed')
      }
      this.changes++
      this.segments = [...this.segments.slice(0, at), installed.segment, ...this.segments.slice(at + group.length)]
      for (const seg of group) this.dirty.delete(seg)
      if (this.deleter !== undefined) await this.deleter.schedule(installed.oldFiles)
      else await Promise.all(installed.oldFiles.map(f => fs.rm(f, { force: true })))
      return true
    })
  }

  /**
   * Makes OFFSET_GAPS_MARKER_FILE durable (file and directory fsynced) before the first data with
   * gaps is written, so recovery never mistakes legitimate gaps for corrupted offsets.
   */
  private async noteOffsetGaps (): Promise<void> {
    if (this.mayHaveGaps) return
    const file = path.join(this.dir, OFFSET_GAPS_MARKER_FILE)
    await this.cache.withSlot(async () => {
      const fh = await fs.open(file, 'w')
      try { await fh.sync() } finally { await fh.close() }
    })
    await this.cache.withSlot(() => fsyncDir(this.dir))
    this.mayHaveGaps = true
  }

  /** @internal log-cleaner: records that everything below `offset` is compacted. */
  markCleanedUpTo (offset: bigint): void {
    if (offset > this.firstDirty) this.firstDirty = offset < this.logEndOffset ? offset : this.logEndOffset
  }

  private async deleteSegmentFiles (seg: Segment): Promise<void> {
    this.dirty.delete(seg)
    await seg.evictHandles()
    await Promise.all([seg.paths.log, seg.paths.index, seg.paths.timeIndex].map(f => fs.rm(f, { force: true })))
  }

  /** fdatasync of everything written so far; advances the recovery point to logEndOffset. */
  async flush (): Promise<void> {
    await this.queue.run(async () => {
      this.assertOpen()
      await this.flushAll()
    })
  }

  private async flushAll (): Promise<void> {
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
  async syncDirtyLogs (): Promise<void> {
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
  async close (): Promise<void> {
    await this.queue.run(async () => {
      if (this.closed) return
      try {
        if (!this.failed) {
          if (await this.active.finalize()) this.dirty.add(this.active)
          await this.flushAll()
          if (this.epochsUnsaved) await this.epochs.persist()
        }
      } finally {
        this.closed = true
        await Promise.all(this.segments.map(s => s.evictHandles()))
      }
    })
  }

  /** Closes without flushing once queued writes are done (the log is being deleted). @internal */
  async discard (): Promise<void> {
    await this.queue.run(async () => {
      await this.rollFlushes
      await this.abandon()
    })
  }

  /** Drops file handles without flushing or checkpointing, as a crash would. @internal (tests) */
  async abandon (): Promise<void> {
    this.closed = true
    await Promise.all(this.segments.map(s => s.evictHandles()))
  }

  private assertOpen (): void {
    if (this.closed) throw new SluiceError('KAFKA_STORAGE_ERROR', `log ${this.topic}-${this.partition} is closed`)
  }

  private assertWritable (): void {
    this.assertOpen()
    if (this.failed) throw new SluiceError('KAFKA_STORAGE_ERROR', `log ${this.topic}-${this.partition} is offline after an I/O error`)
  }
}

function isDiskFull (err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code
  return code === 'ENOSPC' || code === 'EDQUOT'
}

function storageError (err: unknown, what: string): SluiceError {
  if (err instanceof SluiceError) return err
  return new SluiceError('KAFKA_STORAGE_ERROR', `${what}: ${(err as Error).message}`, {}, { cause: err })
}
