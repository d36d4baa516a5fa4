/**
 * The segment set's lifecycle, the layer between the storage (log-storage.ts) and the append and
 * read paths (partition-log.ts): truncation (divergence, a follower restarting at the leader's log
 * start), retention, DeleteRecords and the compaction swap.
 *
 * Invariants:
 *   - logStartOffset (>= the first segment's base, <= logEndOffset) only moves forward, except
 *     when truncation empties the log; retention and DeleteRecords move it, and the owner
 *     persists it (onLogStartOffsetChanged);
 *   - segments leave the list copy-on-write and are renamed to `.deleted` before their files are
 *     removed after a delay, so reads over an older snapshot finish;
 *   - truncation, DeleteRecords and the epoch bookkeeping are the replica's writes: they run inside
 *     `exclusively()` (Partition calls them there). Retention and the compaction swap come from
 *     log maintenance, which knows no Partition, so they queue themselves on the same queue.
 */
import { SluiceError } from '@sluice/protocol'
import fs from 'node:fs/promises'
import path from 'node:path'
import { fsyncDir } from '../io/checkpoint-file.js'
import { planRetention } from '../cleaner/retention.js'
import { OFFSET_GAPS_MARKER_FILE, segmentPaths } from '../segment/log-files.js'
import { Segment } from '../segment/segment.js'
import { LogStorage, storageError } from './log-storage.js'

/** What retention removed. */
export interface RetentionResult {
  segmentsDeleted: number
  bytesDeleted: number
  /** Earliest time at which time-based retention could delete more without other changes. */
  recheckAt: number
}

export abstract class LogLifecycle extends LogStorage {
  get logStartOffset(): bigint {
    return this.logStartOffsetValue
  }
  /** First offset not yet compacted (the cleaner-offset checkpoint). */
  get firstDirtyOffset(): bigint {
    return this.firstDirty
  }

  /**
   * Removes every batch holding an offset >= `offset`; below logStartOffset it empties the log
   * and restarts it at `offset`. Inside exclusively().
   */
  async truncateTo(offset: bigint): Promise<void> {
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
        const keep = this.segments.filter((s) => s.baseOffset < offset)
        const drop = this.segments.filter((s) => s.baseOffset >= offset)
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
  }

  /**
   * Empties the log and restarts it at `offset` (Kafka's truncateFullyAndStartAt): a follower
   * whose whole log lies below the leader's log start offset (retention or DeleteRecords on the
   * leader) cannot fetch what it misses, so it starts over where the leader's log begins.
   * Inside exclusively().
   */
  async truncateFullyAndStartAt(offset: bigint): Promise<void> {
    this.assertWritable()
    await this.rollFlushes
    this.changes++
    try {
      await this.truncateFully(offset)
    } catch (err) {
      this.failed = true
      throw storageError(err, 'truncation failed')
    }
    this.logger.info({ offset: offset.toString() }, "log emptied and restarted at the leader's log start offset")
    this.recoveryPointOffset = offset
    await this.onRecoveryPointLowered?.()
  }

  private async truncateFully(offset: bigint): Promise<void> {
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
   * beyond `highWatermark`; rolls first when the active segment itself must go. Queues itself.
   */
  async deleteRetainedSegments(now: number, highWatermark: bigint): Promise<RetentionResult> {
    return await this.exclusively(async () => {
      this.assertWritable()
      const plan = await planRetention(this.segments, this.config, {
        now,
        highWatermark,
        logStartOffset: this.logStartOffsetValue,
      })
      if (plan.count === 0) return { segmentsDeleted: 0, bytesDeleted: 0, recheckAt: plan.recheckAt }
      try {
        if (plan.rollActive) {
          await this.activate(this.active)
          await this.roll(this.logEndOffset)
        }
        const doomed = this.segments.slice(0, plan.count)
        const bytes = doomed.reduce((n, seg) => n + seg.sizeBytes, 0)
        await this.removeSegments(doomed)
        this.logger.info(
          {
            segments: doomed.map((d) => d.baseOffset.toString()),
            bytes,
            reasons: [...new Set(plan.reasons)],
            logStartOffset: this.logStartOffsetValue.toString(),
          },
          'retention deleted segments',
        )
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
   * returns it (the low watermark). `offset` must not pass `highWatermark`. Inside exclusively().
   */
  async deleteRecordsBefore(offset: bigint, highWatermark: bigint): Promise<bigint> {
    this.assertWritable()
    if (offset < 0n || offset > highWatermark || offset > this.logEndOffset) {
      throw new SluiceError(
        'OFFSET_OUT_OF_RANGE',
        `cannot delete records before ${offset}: the high watermark is ${highWatermark}`,
        { offset: offset.toString(), highWatermark: highWatermark.toString() },
      )
    }
    if (offset <= this.logStartOffsetValue) return this.logStartOffsetValue
    this.changes++
    this.logStartOffsetValue = offset
    try {
      const doomed: Segment[] = []
      for (let i = 0; i + 1 < this.segments.length && this.segments[i + 1]!.baseOffset <= offset; i++)
        doomed.push(this.segments[i]!)
      await this.removeSegments(doomed)
    } catch (err) {
      this.failed = true
      throw storageError(err, 'deleting records failed')
    }
    this.logger.info({ logStartOffset: offset.toString() }, 'records deleted')
    await this.onLogStartOffsetChanged?.()
    return offset
  }

  /**
   * Takes leading closed segments out of the list (copy-on-write), renames their files to
   * `.deleted` and hands them to the delayed deleter; logStartOffset follows the new first segment.
   */
  private async removeSegments(doomed: readonly Segment[]): Promise<void> {
    if (doomed.length === 0) return
    this.changes++
    this.segments = this.segments.filter((s) => !doomed.includes(s))
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
      else await Promise.all(files.map((f) => fs.rm(f, { force: true })))
    }
    if (lsoChanged) await this.onLogStartOffsetChanged?.()
  }

  /**
   * @internal log-cleaner: replaces `group` (consecutive closed segments, still in the log) by
   * the segment `install` puts in place (it commits the swap on disk and renames the old files
   * away, returning them). False, with nothing done, if the group changed meanwhile (retention,
   * truncation). Queues itself.
   */
  async replaceSegments(
    group: readonly Segment[],
    install: (old: readonly Segment[]) => Promise<{ segment: Segment; oldFiles: string[] }>,
  ): Promise<boolean> {
    return await this.exclusively(async () => {
      this.assertWritable()
      const at = this.segments.indexOf(group[0]!)
      if (at < 0 || at + group.length >= this.segments.length || group.some((g, i) => this.segments[at + i] !== g))
        return false
      let installed: { segment: Segment; oldFiles: string[] }
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
      else await Promise.all(installed.oldFiles.map((f) => fs.rm(f, { force: true })))
      return true
    })
  }

  /**
   * Makes OFFSET_GAPS_MARKER_FILE durable (file and directory fsynced) before the first data with
   * gaps is written (a compacted segment, a follower append across the leader's gaps), so
   * recovery never mistakes legitimate gaps for corrupted offsets.
   */
  protected async noteOffsetGaps(): Promise<void> {
    if (this.mayHaveGaps) return
    const file = path.join(this.dir, OFFSET_GAPS_MARKER_FILE)
    await this.cache.withSlot(async () => {
      const fh = await fs.open(file, 'w')
      try {
        await fh.sync()
      } finally {
        await fh.close()
      }
    })
    await this.cache.withSlot(() => fsyncDir(this.dir))
    this.mayHaveGaps = true
  }

  /** @internal log-cleaner: records that everything below `offset` is compacted. */
  markCleanedUpTo(offset: bigint): void {
    if (offset > this.firstDirty) this.firstDirty = offset < this.logEndOffset ? offset : this.logEndOffset
  }
}
