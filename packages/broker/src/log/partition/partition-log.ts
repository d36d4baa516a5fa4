/**
 * One partition replica's log (docs/design.md §4, docs/internal-apis.md `PartitionLog`): an ordered
 * list of segments, the last one active. This file holds the append and read paths; the segment
 * set's lifecycle (truncation, retention, DeleteRecords, compaction swap) is log-lifecycle.ts and
 * the storage under both (segment list, single-writer queue, rolls, flush and fsync, close) is
 * log-storage.ts. Invariants:
 *   - one writer: every write runs as a task of the log's one queue (`exclusively`, see
 *     log-storage.ts); the appends here run inside such a task, which the replica (Partition)
 *     opens together with its own checks, or, while the queue is idle (`writerIdle`), as one
 *     synchronous call that nothing can interleave with (appendPlannedSync, appendReplicatedSync:
 *     a small append to the open active segment, most of them). Reads run concurrently over a
 *     snapshot of the segment list and see only completed appends;
 *   - offsets strictly increase; appends are contiguous (each batch starts at the previous
 *     batch's lastOffset + 1), but compaction leaves gaps in closed segments; logEndOffset is the
 *     active segment's next offset; reads below logStartOffset fail with OFFSET_OUT_OF_RANGE;
 *   - nothing is written for an append that fails validation. A write that fails for lack of
 *     space (ENOSPC/EDQUOT) is undone completely (files cut back to the last published state) and
 *     the log stays writable; any other I/O error during a write marks the log failed (later
 *     writes throw KAFKA_STORAGE_ERROR, close skips the clean marker).
 * Checks made here, and only here: batch spans tiling the buffer and max.message.bytes on a leader
 * append (planLeaderAppend); CRC, magic and offset order of a follower append (appendReplicated).
 * Idle, the object holds the segment list and a few numbers: no open file, timer or buffer.
 */
import { readBigInt64BE, SluiceError, stampBatch, validateBatches, type BatchSpan } from '@sluice/protocol'
import {
  assertSpansTile,
  shouldRoll,
  UnexpectedAppendOffsetError,
  type PlannedBatch,
  type SegmentFill,
} from './append-plan.js'
import { indexBatch, PendingIndexEntries, type IndexCursor } from '../segment/index-cursor.js'
import type { EpochEntry } from './leader-epoch-cache.js'
import type { LogConfig } from '../log-config.js'
import {
  findOffsetForTimestamp,
  readBatches,
  readBatchesSync,
  type ReadOptions,
  type ReadResult,
} from './log-reader.js'
import type { Segment, SegmentWrite } from '../segment/segment.js'
import { LogLifecycle } from './log-lifecycle.js'
import { storageError } from './log-storage.js'

export type { PartitionLogInit } from './log-storage.js'
export type { RetentionResult } from './log-lifecycle.js'

/** A leader append with its offsets assigned (planLeaderAppend), not yet written (appendPlanned). */
export interface LeaderAppendPlan {
  readonly firstOffset: bigint
  readonly lastOffset: bigint
  readonly maxTimestamp: bigint
  readonly leaderEpoch: number
  readonly batches: readonly PlannedBatch[]
}

/** The offsets an append wrote. */
export interface AppendedRange {
  readonly firstOffset: bigint
  readonly lastOffset: bigint
}

/** Consecutive batches of one append that go into one segment with one write (write, writeNow). */
interface AppendGroup {
  readonly from: number
  readonly fill: SegmentFill
  readonly pending: PendingIndexEntries
  readonly cursor: IndexCursor
}

/** The group's batches up to `to` (exclusive) as one segment write. */
function segmentWrite(buf: Buffer, plan: readonly PlannedBatch[], group: AppendGroup, to: number): SegmentWrite {
  return { buf, batches: plan, from: group.from, to, pending: group.pending, cursor: group.cursor }
}

function rangeOf(plan: readonly PlannedBatch[]): AppendedRange {
  return { firstOffset: plan[0]!.baseOffset, lastOffset: plan[plan.length - 1]!.lastOffset }
}

export class PartitionLog extends LogLifecycle {
  get currentConfig(): Readonly<LogConfig> {
    return this.config
  }
  /** Base offsets of the segments, oldest first. @internal (tests) */
  get segmentBaseOffsets(): bigint[] {
    return this.segments.map((s) => s.baseOffset)
  }
  /** Changes when segments, their contents or the config change (maintenance skips unchanged logs). */
  get changeCount(): number {
    return this.changes
  }
  /** Snapshot of the segments, oldest first; the last is active. @internal (log-cleaner) */
  get segmentList(): readonly Segment[] {
    return this.segments
  }
  get sizeBytes(): number {
    let total = 0
    for (const s of this.segments) total += s.sizeBytes
    return total
  }

  /** Applies a new config (topic config change); appends use it from the next one, retention and compaction from their next run. */
  updateConfig(config: LogConfig): void {
    const changed = Object.keys(config).some((k) => config[k as keyof LogConfig] !== this.config[k as keyof LogConfig])
    this.config = { ...config }
    if (changed) this.changes++
  }

  /**
   * Leader append, step 1 (synchronous, nothing written): checks that `spans` tile `batches` and
   * that each batch fits max.message.bytes (MESSAGE_TOO_LARGE), and assigns offsets from the log
   * end. Inside exclusively(), followed by appendPlanned in the same task.
   */
  planLeaderAppend(batches: Buffer, spans: readonly BatchSpan[], leaderEpoch: number): LeaderAppendPlan {
    this.assertWritable()
    assertSpansTile(batches, spans)
    for (const s of spans) {
      if (s.sizeBytes > this.config.maxMessageBytes) {
        throw new SluiceError(
          'MESSAGE_TOO_LARGE',
          `batch of ${s.sizeBytes} bytes exceeds max.message.bytes ${this.config.maxMessageBytes}`,
          { sizeBytes: s.sizeBytes, maxMessageBytes: this.config.maxMessageBytes },
        )
      }
    }
    const firstOffset = this.logEndOffset
    let next = firstOffset
    let maxTimestamp = -1n
    const plan: PlannedBatch[] = spans.map((s) => {
      const baseOffset = next
      next = baseOffset + BigInt(s.lastOffsetDelta) + 1n
      if (s.maxTimestamp > maxTimestamp) maxTimestamp = s.maxTimestamp
      return {
        position: s.position,
        sizeBytes: s.sizeBytes,
        baseOffset,
        lastOffset: next - 1n,
        maxTimestamp: s.maxTimestamp,
        partitionLeaderEpoch: leaderEpoch,
      }
    })
    return { firstOffset, lastOffset: next - 1n, maxTimestamp, leaderEpoch, batches: plan }
  }

  /**
   * Leader append, step 2: stamps the planned offsets and leader epoch into `batches` in place,
   * writes them, and (flush: 'fsync') waits for the group commit. Inside exclusively(), in the
   * task that made `plan`.
   */
  async appendPlanned(batches: Buffer, plan: LeaderAppendPlan): Promise<void> {
    if (this.appendPlannedSync(batches, plan)) return
    await this.write(batches, plan.batches)
    await this.noteEpochs(plan.batches)
    if (this.config.flush === 'fsync') await this.syncWrites()
  }

  /**
   * appendPlanned at once when the append needs nothing but one small write to the open active
   * segment (writeNow): true when it wrote; false when nothing was written and appendPlanned must
   * run. In the same task as planLeaderAppend (exclusively() or, with the writer idle, a
   * synchronous caller).
   */
  appendPlannedSync(batches: Buffer, plan: LeaderAppendPlan): boolean {
    // The plan is only valid in the task that made it; a write in between would make it overlap.
    if (plan.firstOffset !== this.logEndOffset)
      throw new Error(`stale leader append plan: planned at ${plan.firstOffset}, the log ends at ${this.logEndOffset}`)
    for (const b of plan.batches) stampBatch(batches, b.position, b.baseOffset, plan.leaderEpoch)
    return this.writeNow(batches, plan.batches)
  }

  /**
   * Follower append of batches fetched from the leader (offsets and epochs already assigned);
   * validates them (CORRUPT_MESSAGE / INVALID_BATCH before anything is written). Gaps are legal,
   * overlaps are not. Inside exclusively().
   */
  async appendReplicated(batches: Buffer): Promise<AppendedRange> {
    this.assertWritable()
    const { plan, gapped } = this.planReplicated(batches)
    if (!gapped && this.writeNow(batches, plan)) return rangeOf(plan)
    if (gapped) await this.noteOffsetGaps()
    await this.write(batches, plan)
    await this.noteEpochs(plan)
    if (this.config.flush === 'fsync') await this.syncWrites()
    return rangeOf(plan)
  }

  /**
   * appendReplicated at once when it needs nothing but one small write to the open active
   * segment (writeNow): the offsets written, or undefined when nothing was written and
   * appendReplicated must run. Throws as appendReplicated rejects. Inside exclusively() or, with
   * the writer idle, from a synchronous caller.
   */
  appendReplicatedSync(batches: Buffer): AppendedRange | undefined {
    this.assertWritable()
    const { plan, gapped } = this.planReplicated(batches)
    return !gapped && this.writeNow(batches, plan) ? rangeOf(plan) : undefined
  }

  /** The batches of a follower append, validated, with their offsets; `gapped` if one starts past the previous one's end. */
  private planReplicated(batches: Buffer): { plan: PlannedBatch[]; gapped: boolean } {
    const spans = validateBatches(batches)
    let expected = this.logEndOffset
    let gapped = false
    const plan: PlannedBatch[] = spans.map((s) => {
      const baseOffset = readBigInt64BE(batches, s.position)
      // A gap is legal (the leader's log was compacted there); an overlap never is.
      if (baseOffset < expected) throw new UnexpectedAppendOffsetError(expected, baseOffset)
      if (baseOffset > expected) gapped = true
      expected = baseOffset + BigInt(s.lastOffsetDelta) + 1n
      return {
        position: s.position,
        sizeBytes: s.sizeBytes,
        baseOffset,
        lastOffset: expected - 1n,
        maxTimestamp: s.maxTimestamp,
        partitionLeaderEpoch: s.partitionLeaderEpoch,
      }
    })
    return { plan, gapped }
  }

  /**
   * The common append without a promise: the batches fit the active segment (no roll), which is
   * loaded and whose .log is open, they start no new leader epoch, no fsync is asked for, and
   * they are at most SYNC_WRITE_MAX_BYTES. True when it wrote them (write's work, done at once);
   * false when nothing was written and write() must run. A failed write is left to write(), which
   * writes the same bytes at the same position again and undoes or fails the log as it decides.
   */
  private writeNow(buf: Buffer, plan: readonly PlannedBatch[]): boolean {
    if (this.config.flush === 'fsync' || this.epochsUnsaved) return false
    const latestEpoch = this.epochs.latestEpoch
    for (const b of plan) if (latestEpoch === undefined || b.partitionLeaderEpoch > latestEpoch) return false
    const seg = this.active
    if (seg.active === undefined || (seg.sizeBytes > 0 && seg.firstBatchMaxTimestamp === undefined)) return false
    const group = this.groupFrom(seg, 0, seg.sizeBytes === 0 ? undefined : seg.firstBatchMaxTimestamp)
    for (const b of plan) {
      if (shouldRoll(group.fill, b, this.config)) return false
      this.addToGroup(group, seg, b)
    }
    this.noteWriteTo(seg)
    try {
      if (!seg.appendSync(segmentWrite(buf, plan, group, plan.length))) return false
    } catch {
      return false
    }
    this.changes++
    return true
  }

  /** Writes planned batches, rolling between groups as append-plan.ts decides. */
  private async write(buf: Buffer, plan: readonly PlannedBatch[]): Promise<void> {
    const segmentCount = this.segments.length
    const endBefore = this.logEndOffset
    this.changes++
    try {
      let seg = await this.activate(this.active)
      let group = this.groupFrom(seg, 0, await seg.firstTimestamp())
      for (let i = 0; i < plan.length; i++) {
        const b = plan[i]!
        if (shouldRoll(group.fill, b, this.config)) {
          if (i > group.from) await this.commitGroup(seg, segmentWrite(buf, plan, group, i))
          seg = await this.roll(b.baseOffset)
          group = this.groupFrom(seg, i, undefined)
        }
        this.addToGroup(group, seg, b)
      }
      await this.commitGroup(seg, segmentWrite(buf, plan, group, plan.length))
    } catch (err) {
      if (isDiskFull(err) && (await this.undoAppend(segmentCount, endBefore))) {
        this.logger.warn(
          { err, logEndOffset: endBefore.toString() },
          'append failed: disk full; nothing of it was kept',
        )
        throw new SluiceError(
          'KAFKA_STORAGE_ERROR',
          `disk full: the append was not written (${(err as Error).message})`,
          { reason: 'disk-full' },
          { cause: err },
        )
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
  private async undoAppend(segmentCount: number, endOffset: bigint): Promise<boolean> {
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

  /** The batches of `plan` from `from` on that go into `seg` (its first batch's timestamp `firstTimestamp`). */
  private groupFrom(seg: Segment, from: number, firstTimestamp: bigint | undefined): AppendGroup {
    const fill: SegmentFill = {
      baseOffset: seg.baseOffset,
      sizeBytes: seg.sizeBytes,
      firstBatchMaxTimestamp: firstTimestamp,
      offsetIndexEntries: seg.offsetIndexEntries,
      timeIndexEntries: seg.timeIndexEntries,
    }
    return { from, fill, pending: new PendingIndexEntries(), cursor: { ...seg.active!.cursor } }
  }

  /** Adds batch `b` to `group`: its index entries, and the fill shouldRoll judges the next batch by. */
  private addToGroup(group: AppendGroup, seg: Segment, b: PlannedBatch): void {
    indexBatch(
      group.cursor,
      group.pending,
      seg.baseOffset,
      group.fill.sizeBytes,
      b.sizeBytes,
      b.lastOffset,
      b.maxTimestamp,
      this.config.indexIntervalBytes,
    )
    if (group.fill.sizeBytes === 0) group.fill.firstBatchMaxTimestamp = b.maxTimestamp
    group.fill.sizeBytes += b.sizeBytes
    group.fill.offsetIndexEntries = seg.offsetIndexEntries + group.pending.offsetCount
    group.fill.timeIndexEntries = seg.timeIndexEntries + group.pending.timeCount
  }

  private async commitGroup(seg: Segment, w: SegmentWrite): Promise<void> {
    this.noteWriteTo(seg)
    await seg.append(w)
  }

  /** Before a write to `seg`: the group commit syncs it, and its directory entry when it is a new file. */
  private noteWriteTo(seg: Segment): void {
    this.dirty.add(seg)
    if (seg.sizeBytes === 0) this.dirNeedsSync = true
  }

  /** Adds epoch-cache entries for batches whose epoch is newer than the latest one. */
  private async noteEpochs(plan: readonly PlannedBatch[]): Promise<void> {
    let changed = false
    for (const b of plan) {
      const latest = this.epochs.latestEpoch
      if (latest === undefined || b.partitionLeaderEpoch > latest)
        changed = this.epochs.assign(b.partitionLeaderEpoch, b.baseOffset) || changed
    }
    if (changed || this.epochsUnsaved) await this.persistEpochs()
  }

  /** The epoch cache lives in memory; a failed save (disk full) is retried with the next change or at close. */
  private async persistEpochs(): Promise<void> {
    try {
      await this.epochs.persist()
      this.epochsUnsaved = false
    } catch (err) {
      this.epochsUnsaved = true
      this.logger.warn({ err }, 'could not save the leader-epoch checkpoint; will retry')
    }
  }

  async read(offset: bigint, maxBytes: number, options: ReadOptions = {}): Promise<ReadResult> {
    const empty = this.readBounds(offset, options)
    if (empty !== undefined) return empty
    try {
      return await readBatches(this.segments, offset, Math.max(0, maxBytes), options)
    } catch (err) {
      throw storageError(err, 'read failed')
    }
  }

  /**
   * read() answered on the spot when it needs no I/O beyond the active segment's tail (a
   * follower or a caught-up consumer); undefined when read() must run instead. Throws as read()
   * rejects (OFFSET_OUT_OF_RANGE, storage errors). Spares the tail read its promise chain.
   */
  readSync(offset: bigint, maxBytes: number, options: ReadOptions = {}): ReadResult | undefined {
    const empty = this.readBounds(offset, options)
    if (empty !== undefined) return empty
    try {
      return readBatchesSync(this.segments, offset, Math.max(0, maxBytes), options)
    } catch (err) {
      throw storageError(err, 'read failed')
    }
  }

  /** read()'s range check; the empty answer when there is nothing to read, else undefined. */
  private readBounds(offset: bigint, options: ReadOptions): ReadResult | undefined {
    this.assertOpen()
    const segments = this.segments
    const start = this.logStartOffsetValue
    const end = segments[segments.length - 1]!.nextOffset
    if (offset < start || offset > end) {
      throw new SluiceError('OFFSET_OUT_OF_RANGE', `offset ${offset} is outside the log range [${start}, ${end}]`, {
        offset: offset.toString(),
        logStartOffset: start.toString(),
        logEndOffset: end.toString(),
      })
    }
    if (offset === end || (options.maxOffset !== undefined && offset >= options.maxOffset)) {
      return { records: Buffer.alloc(0), firstOffset: offset }
    }
    return undefined
  }

  async offsetForTimestamp(ts: bigint): Promise<{ offset: bigint; timestamp: bigint } | undefined> {
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
  leaderEpochs(): EpochEntry[] {
    return this.epochs.all
  }

  /**
   * KIP-101/279: the largest epoch <= `epoch` this log knows and the offset where it ends (the
   * next epoch's start, or logEndOffset for the latest). `{ epoch: -1, endOffset: -1n }` when the
   * requested epoch is newer than any known (Kafka's UNDEFINED_EPOCH / UNDEFINED_EPOCH_OFFSET).
   */
  endOffsetForEpoch(epoch: number): { epoch: number; endOffset: bigint } {
    return this.epochs.endOffsetFor(epoch, this.logEndOffset)
  }

  /** Records that `epoch` starts at `startOffset` (default: logEndOffset), as a new leader does. Inside exclusively(). */
  async assignLeaderEpoch(epoch: number, startOffset?: bigint): Promise<void> {
    this.assertWritable()
    if (this.epochs.assign(epoch, startOffset ?? this.logEndOffset)) await this.epochs.persist()
  }
}

function isDiskFull(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code
  return code === 'ENOSPC' || code === 'EDQUOT'
}
