/**
 * One log segment: `<base>.log` (whole batches back to back, offsets stamped, exactly as
 * received), `<base>.index` and `<base>.timeindex` (see offset-index.ts, time-index.ts).
 * In-memory state is small: sizes, entry counts, next offset and a few timestamps. Only the
 * active (last) segment may hold its index entries in memory, loaded lazily on its first append
 * or truncation, so an idle partition holds no index buffers. An append writes only the .log
 * (one write per append): the active segment's new index entries stay in memory and reach the
 * index files when it is flushed or finalized (roll, close). So after an unclean stop the active
 * segment's index files may be short; recovery rebuilds every segment from the recovery point
 * on, and the recovery point only moves past data flushed together with its indexes. The active
 * segment also remembers where its last few batches are (recent-batches.ts) for tail reads.
 * Invariants:
 *   - sizeBytes / nextOffset / entry counts change only after the .log bytes they describe were
 *     written, so concurrent readers never see a position past completed writes;
 *   - every index entry points inside [0, sizeBytes) and at a batch boundary;
 *   - the index files hold a prefix of the entries (all of them once the segment is not active);
 *   - batches have strictly increasing offsets, the first at or after the segment's base offset;
 *     a compacted segment has gaps (between and inside batches), so nextOffset is only an upper
 *     bound: lastOffset + 1 of the last batch <= nextOffset <= the next segment's base offset;
 *   - an empty segment's files may not exist yet (Segment.lazy, a partition that never received
 *     data): every access that could be the first write creates them, reads of nothing open none;
 *   - `paths` changes only when the files are renamed away for deletion (renameForDeletion);
 *     readers go through `paths` on every access, so reads that hold the segment keep working.
 */
import fs from 'node:fs/promises'
import type { BatchHeader } from '@sluice/protocol'
import type { PlannedBatch } from '../partition/append-plan.js'
import type { FileHandleCache } from '../io/file-handle-cache.js'
import { HeaderReader } from './header-scan.js'
import { freshIndexCursor, maybeTimeEntry, PendingIndexEntries, type IndexCursor } from './index-cursor.js'
import { readAt, readAtSync, readExactly, SYNC_WRITE_MAX_BYTES, writeFully, writeFullySync } from '../io/file-io.js'
import { DELETED_SUFFIX, type SegmentPaths } from './log-files.js'
import { activeIndexes, lastWriteOf, type ActiveIndexes } from './active-indexes.js'
import type { ScanOutcome } from './segment-scan.js'
import { lookupOffsetIndexFile, OFFSET_INDEX_ENTRY_BYTES, OffsetIndexEntries } from './offset-index.js'
import { lookupTimeIndexFile, readLastTimeEntry, TIME_INDEX_ENTRY_BYTES, TimeIndexEntries } from './time-index.js'

/**
 * Batches [from, to) of an append's buffer that go into one segment, with the index entries
 * PartitionLog computed for them (indexBatch) and the index cursor after them.
 */
export interface SegmentWrite {
  readonly buf: Buffer
  readonly batches: readonly PlannedBatch[]
  readonly from: number
  readonly to: number
  readonly pending: PendingIndexEntries
  readonly cursor: IndexCursor
}

/** Where batch `b` ends in the append's buffer. */
function endOf(b: PlannedBatch): number {
  return b.position + b.sizeBytes
}

/** A batch found by a seek: enough to read it whole or cut before it. */
export type SeekHit = Pick<BatchHeader, 'baseOffset' | 'sizeBytes'>

export interface SegmentState {
  sizeBytes: number
  nextOffset: bigint
  offsetIndexEntries: number
  timeIndexEntries: number
  /** maxTimestamp of the first batch (rolling by time); undefined = not known yet. */
  firstBatchMaxTimestamp?: bigint | undefined
  /** Largest batch maxTimestamp; undefined = not loaded yet (read from the time index). */
  maxTimestamp?: bigint | undefined
}

export class Segment {
  sizeBytes: number
  nextOffset: bigint
  offsetIndexEntries: number
  timeIndexEntries: number
  firstBatchMaxTimestamp: bigint | undefined
  private maxTimestampKnown: bigint | undefined
  /** Entries in the index files (a prefix of offsetIndexEntries / timeIndexEntries). */
  private persistedOffsetEntries: number
  private persistedTimeEntries: number
  active: ActiveIndexes | undefined

  constructor(
    readonly baseOffset: bigint,
    public paths: SegmentPaths,
    private readonly cache: FileHandleCache,
    state: SegmentState,
  ) {
    this.sizeBytes = state.sizeBytes
    this.nextOffset = state.nextOffset
    this.offsetIndexEntries = state.offsetIndexEntries
    this.timeIndexEntries = state.timeIndexEntries
    this.firstBatchMaxTimestamp = state.firstBatchMaxTimestamp
    this.maxTimestampKnown = state.maxTimestamp
    this.persistedOffsetEntries = state.offsetIndexEntries
    this.persistedTimeEntries = state.timeIndexEntries
  }

  /**
   * An empty segment whose files need not exist yet: they are created by its first append (an
   * idle partition that never received data costs no file at all). Any leftover files are
   * truncated away by that append.
   */
  static lazy(baseOffset: bigint, paths: SegmentPaths, cache: FileHandleCache): Segment {
    return new Segment(baseOffset, paths, cache, {
      sizeBytes: 0,
      nextOffset: baseOffset,
      offsetIndexEntries: 0,
      timeIndexEntries: 0,
      maxTimestamp: -1n,
    })
  }

  /** Creates empty files (truncating leftovers) for a new active segment. */
  static async create(baseOffset: bigint, paths: SegmentPaths, cache: FileHandleCache): Promise<Segment> {
    for (const file of [paths.log, paths.index, paths.timeIndex]) {
      // A handle cached for an earlier file of the same name (deleted since) must not be reused.
      await cache.evict(file)
      await cache.use(
        file,
        async (fh) => {
          await fh.truncate(0)
        },
        { create: true },
      )
    }
    const seg = new Segment(baseOffset, paths, cache, {
      sizeBytes: 0,
      nextOffset: baseOffset,
      offsetIndexEntries: 0,
      timeIndexEntries: 0,
      maxTimestamp: -1n,
    })
    seg.active = activeIndexes(new OffsetIndexEntries(), new TimeIndexEntries(), freshIndexCursor(baseOffset))
    return seg
  }

  /** Largest batch timestamp in the segment (-1 if none). */
  async maxTimestamp(): Promise<bigint> {
    if (this.active !== undefined) return this.active.cursor.maxTimestampSoFar
    if (this.maxTimestampKnown === undefined) {
      const last = await readLastTimeEntry(this.cache, this.paths.timeIndex, this.timeIndexEntries)
      this.maxTimestampKnown = last?.timestamp ?? -1n
    }
    return this.maxTimestampKnown
  }

  /**
   * Loads the index files into memory so appends can extend them. Returns false if they are not
   * a valid index of this .log (the caller then rebuilds them by scanning).
   */
  async loadActive(): Promise<boolean> {
    if (this.active !== undefined) return true
    const offBuf = await this.readWhole(this.paths.index, this.offsetIndexEntries * OFFSET_INDEX_ENTRY_BYTES)
    const timeBuf = await this.readWhole(this.paths.timeIndex, this.timeIndexEntries * TIME_INDEX_ENTRY_BYTES)
    const offsetIndex = offBuf === undefined ? undefined : OffsetIndexEntries.parse(offBuf, this.sizeBytes)
    const timeIndex = timeBuf === undefined ? undefined : TimeIndexEntries.parse(timeBuf)
    if (offsetIndex === undefined || timeIndex === undefined) return false
    const cursor = await this.restoreCursor(offsetIndex, timeIndex)
    if (cursor === undefined) return false
    this.active = activeIndexes(offsetIndex, timeIndex, cursor)
    return true
  }

  /** maxTimestamp of the first batch, read from its header on first use. */
  async firstTimestamp(): Promise<bigint | undefined> {
    if (this.sizeBytes === 0) return undefined
    if (this.firstBatchMaxTimestamp === undefined) {
      const h = await this.cache.use(this.paths.log, (fh) =>
        new HeaderReader(fh, this.paths.log).headerAt(0, this.sizeBytes),
      )
      this.firstBatchMaxTimestamp = h?.maxTimestamp
    }
    return this.firstBatchMaxTimestamp
  }

  /**
   * Appends `w` (whole batches, offsets stamped, contiguous in its buffer) with one positional
   * write of the .log, then publishes the new state: sizes, the pending index entries (in memory
   * only; see persistIndexes) and the batches' positions.
   */
  async append(w: SegmentWrite): Promise<void> {
    if (this.appendSync(w)) return
    const at = this.sizeBytes
    const [start, end] = [w.batches[w.from]!.position, endOf(w.batches[w.to - 1]!)]
    await this.cache.use(this.paths.log, (fh) => writeFully(fh, w.buf, start, end, at), { create: true })
    this.publish(w, at)
  }

  /**
   * append() at once when the .log is open already (the active segment's, which every append
   * keeps open) and the write is small: true when it wrote; false when it wrote nothing and
   * append() must run. Throws as append() rejects, possibly after a partial write past sizeBytes.
   */
  appendSync(w: SegmentWrite): boolean {
    if (this.active === undefined) throw new Error('append to a segment that is not active')
    const start = w.batches[w.from]!.position
    const end = endOf(w.batches[w.to - 1]!)
    const at = this.sizeBytes
    if (end - start > SYNC_WRITE_MAX_BYTES) return false
    const written =
      this.cache.useSync(this.paths.log, (fh) => {
        writeFullySync(fh, w.buf, start, end, at)
        return true
      }) === true
    if (written) this.publish(w, at)
    return written
  }

  /** The state after `w` was written at `at` (see append). */
  private publish(w: SegmentWrite, at: number): void {
    const active = this.active!
    const { batches, pending } = w
    const first = batches[w.from]!
    const last = batches[w.to - 1]!
    const start = first.position
    const end = endOf(last)
    for (let i = 0; i < pending.offsetCount; i++)
      active.offsetIndex.append(pending.offsetRel[i]!, pending.offsetPos[i]!)
    for (let i = 0; i < pending.timeCount; i++) active.timeIndex.append(pending.timeTs[i]!, pending.timeRel[i]!)
    for (let i = w.from; i < w.to; i++) {
      const b = batches[i]!
      active.recent.push(
        Number(b.baseOffset - this.baseOffset),
        Number(b.lastOffset - this.baseOffset),
        at + b.position - start,
        b.sizeBytes,
      )
    }
    active.cursor = w.cursor
    active.lastWrite = lastWriteOf(w.buf, start, end, at)
    if (this.sizeBytes === 0) this.firstBatchMaxTimestamp = first.maxTimestamp
    this.offsetIndexEntries += pending.offsetCount
    this.timeIndexEntries += pending.timeCount
    this.sizeBytes += end - start
    this.nextOffset = last.lastOffset + 1n
  }

  /**
   * Writes the index entries that are only in memory (the active segment's since the last call)
   * to the end of the index files. True if it wrote. Runs with the log's writes (its queue), or on
   * a segment no longer active (then there is nothing to write).
   */
  private async persistIndexes(): Promise<boolean> {
    const active = this.active
    if (active === undefined) return false
    const offsets = await this.persistEntries(
      active.offsetIndex,
      this.paths.index,
      OFFSET_INDEX_ENTRY_BYTES,
      this.persistedOffsetEntries,
    )
    this.persistedOffsetEntries = Math.max(this.persistedOffsetEntries, offsets)
    const times = await this.persistEntries(
      active.timeIndex,
      this.paths.timeIndex,
      TIME_INDEX_ENTRY_BYTES,
      this.persistedTimeEntries,
    )
    this.persistedTimeEntries = Math.max(this.persistedTimeEntries, times)
    return offsets > 0 || times > 0
  }

  /** Writes entries [persisted, length) of one index at the end of its file; the new persisted count, 0 if none were due. */
  private async persistEntries(
    index: { readonly length: number; toBuffer(from: number): Buffer },
    file: string,
    entryBytes: number,
    persisted: number,
  ): Promise<number> {
    const length = index.length
    if (persisted >= length) return 0
    const b = index.toBuffer(persisted)
    await this.cache.use(file, (fh) => writeFully(fh, b, 0, b.length, persisted * entryBytes), { create: true })
    return length
  }

  /**
   * Ends the active phase (roll or close): adds the closing time-index entry so the file's last
   * entry is the segment's max timestamp, writes every index entry still only in memory, and
   * drops the in-memory indexes. True if it wrote.
   */
  async finalize(): Promise<boolean> {
    const active = this.active
    if (active === undefined) return false
    const pending = new PendingIndexEntries()
    const cursor = { ...active.cursor }
    maybeTimeEntry(cursor, pending, this.baseOffset)
    for (let i = 0; i < pending.timeCount; i++) active.timeIndex.append(pending.timeTs[i]!, pending.timeRel[i]!)
    active.cursor = cursor
    this.timeIndexEntries += pending.timeCount
    const wrote = await this.persistIndexes()
    this.maxTimestampKnown = cursor.maxTimestampSoFar
    this.active = undefined
    return wrote
  }

  /** Position of the greatest indexed batch ending at or before `offset` (a safe scan start). */
  async indexedPositionFor(offset: bigint): Promise<number> {
    const rel = offset - this.baseOffset
    if (rel < 0n) return 0
    const relTarget = rel > 0x7fffffffn ? 0x7fffffff : Number(rel)
    const active = this.active
    if (active !== undefined) return active.offsetIndex.lookup(relTarget)
    return await lookupOffsetIndexFile(this.cache, this.paths.index, this.offsetIndexEntries, relTarget, this.sizeBytes)
  }

  /** First batch at or after `position` with maxTimestamp >= ts, below `limit`. */
  async seekTimestamp(position: number, limit: number, ts: bigint): Promise<BatchHeader | undefined> {
    if (limit <= position) return undefined
    return await this.cache.use(this.paths.log, (fh) =>
      new HeaderReader(fh, this.paths.log).seekTimestamp(position, limit, ts),
    )
  }

  /** The last entry of the .index file, or undefined if it cannot be read. */
  async readLastOffsetEntry(): Promise<{ relOffset: number; position: number } | undefined> {
    if (this.offsetIndexEntries === 0) return undefined
    const entry = Buffer.allocUnsafe(OFFSET_INDEX_ENTRY_BYTES)
    const ok = await this.cache.use(this.paths.index, (fh) =>
      readExactly(fh, entry, (this.offsetIndexEntries - 1) * OFFSET_INDEX_ENTRY_BYTES),
    )
    return ok ? { relOffset: entry.readInt32BE(0), position: entry.readInt32BE(4) } : undefined
  }

  /** Relative offset of the greatest time entry with timestamp < ts (see TimeIndexEntries). */
  async timeIndexLookupBefore(ts: bigint): Promise<number | undefined> {
    const active = this.active
    if (active !== undefined) return active.timeIndex.lookupBefore(ts)
    return await lookupTimeIndexFile(this.cache, this.paths.timeIndex, this.timeIndexEntries, ts)
  }

  /**
   * The batch holding `offset` (first batch with lastOffset >= offset) below `limit`, or the end
   * position. Near the end of the active segment the recent-batch list answers without I/O.
   */
  async seek(offset: bigint, limit: number): Promise<{ position: number; header: SeekHit | undefined }> {
    const recent = this.seekRecent(offset, limit)
    if (recent !== undefined) return recent
    const start = await this.indexedPositionFor(offset)
    return await this.cache.use(this.paths.log, (fh) =>
      new HeaderReader(fh, this.paths.log).seekOffset(start, limit, offset),
    )
  }

  /** seek() when the recent-batch list answers it (no I/O), else undefined. */
  seekRecent(offset: bigint, limit: number): { position: number; header: SeekHit | undefined } | undefined {
    if (limit === 0) return { position: 0, header: undefined }
    const active = this.active
    if (active === undefined) return undefined
    const rel = offset - this.baseOffset
    const hit = active.recent.find(rel < 0n ? -1 : rel > 0x7fffffffn ? 0x7fffffff : Number(rel), limit)
    if (hit === 'end') return { position: limit, header: undefined }
    if (hit === undefined) return undefined
    return {
      position: hit.position,
      header: { baseOffset: this.baseOffset + BigInt(hit.relBase), sizeBytes: hit.sizeBytes },
    }
  }

  /**
   * Removes every batch holding offsets >= `offset` (a whole batch goes if it straddles it).
   * The segment must be active (loadActive done). Returns the new next offset.
   */
  async truncateTo(offset: bigint): Promise<bigint> {
    const active = this.active
    if (active === undefined) throw new Error('truncate of a segment that is not active')
    const { position, header } = await this.seek(offset, this.sizeBytes)
    if (header === undefined) {
      // Every batch ends before `offset` (a compacted tail with a gap): only the bound moves.
      if (offset < this.nextOffset) this.nextOffset = offset
      return this.nextOffset
    }
    await this.cache.use(this.paths.log, (fh) => fh.truncate(position))
    active.offsetIndex.truncateToPosition(position)
    active.timeIndex.truncateToRelOffset(Number(header.baseOffset - this.baseOffset))
    active.recent.truncateToPosition(position)
    active.lastWrite = undefined
    // The files hold a prefix of the entries: cut them only where they now hold dropped ones.
    this.persistedOffsetEntries = Math.min(this.persistedOffsetEntries, active.offsetIndex.length)
    this.persistedTimeEntries = Math.min(this.persistedTimeEntries, active.timeIndex.length)
    await this.truncateIndexFilesToPersisted()
    this.offsetIndexEntries = active.offsetIndex.length
    this.timeIndexEntries = active.timeIndex.length
    this.sizeBytes = position
    // The cut batch straddles `offset`, or starts after a gap that begins at or before it.
    this.nextOffset = header.baseOffset < offset ? header.baseOffset : offset
    if (position === 0) this.firstBatchMaxTimestamp = undefined
    const cursor = await this.restoreCursor(active.offsetIndex, active.timeIndex)
    if (cursor === undefined) throw new Error(`segment ${this.paths.log} has no valid batch tail after truncation`)
    active.cursor = cursor
    return this.nextOffset
  }

  /**
   * Rebuilds the index cursor from the index files' last entries plus a header scan of the batches
   * after the last offset-index entry: only those can hold a timestamp above the last time entry
   * (at every offset-index entry a grown max is written), so the scan is bounded by about
   * indexIntervalBytes. Also checks that the tail ends exactly at sizeBytes at nextOffset.
   */
  private async restoreCursor(
    offsetIndex: OffsetIndexEntries,
    timeIndex: TimeIndexEntries,
  ): Promise<IndexCursor | undefined> {
    const cursor = freshIndexCursor(this.baseOffset)
    const n = timeIndex.length
    if (n > 0) {
      cursor.maxTimestampSoFar = timeIndex.timestampAt(n - 1)
      cursor.offsetOfMaxTimestampSoFar = this.baseOffset + BigInt(timeIndex.relOffsetAt(n - 1))
      cursor.lastTimeEntryTimestamp = cursor.maxTimestampSoFar
    }
    const from = offsetIndex.length > 0 ? offsetIndex.positionAt(offsetIndex.length - 1) : 0
    const tail = await this.scanTail(from)
    if (tail === undefined || (tail.lastOffset !== undefined && tail.lastOffset + 1n > this.nextOffset))
      return undefined
    if (tail.maxTimestamp > cursor.maxTimestampSoFar) {
      cursor.maxTimestampSoFar = tail.maxTimestamp
      cursor.offsetOfMaxTimestampSoFar = tail.offsetOfMaxTimestamp
    }
    cursor.bytesSinceLastIndexEntry = this.sizeBytes - from
    return cursor
  }

  /**
   * Header scan from `from` (a batch boundary) to sizeBytes: the last batch's lastOffset and the
   * largest maxTimestamp seen; undefined if the batches do not end exactly at sizeBytes.
   */
  async scanTail(
    from: number,
  ): Promise<{ lastOffset: bigint | undefined; maxTimestamp: bigint; offsetOfMaxTimestamp: bigint } | undefined> {
    if (from === 0 && this.sizeBytes === 0)
      return { lastOffset: undefined, maxTimestamp: -1n, offsetOfMaxTimestamp: this.baseOffset }
    return await this.cache.use(this.paths.log, async (fh) => {
      const reader = new HeaderReader(fh, this.paths.log)
      let pos = from
      let lastOffset: bigint | undefined
      let maxTimestamp = -1n
      let offsetOfMaxTimestamp = this.baseOffset
      try {
        for (;;) {
          const h = await reader.headerAt(pos, this.sizeBytes)
          if (h === undefined) break
          lastOffset = h.baseOffset + BigInt(h.lastOffsetDelta)
          if (h.maxTimestamp > maxTimestamp) {
            maxTimestamp = h.maxTimestamp
            offsetOfMaxTimestamp = lastOffset
          }
          pos += h.sizeBytes
        }
      } catch {
        return undefined
      }
      return pos === this.sizeBytes ? { lastOffset, maxTimestamp, offsetOfMaxTimestamp } : undefined
    })
  }

  /** Adopts the result of a recovery scan (the files were already truncated and re-indexed). */
  adoptScan(outcome: ScanOutcome): void {
    this.sizeBytes = outcome.validBytes
    this.nextOffset = outcome.nextOffset
    this.offsetIndexEntries = outcome.offsetIndex.length
    this.timeIndexEntries = outcome.timeIndex.length
    this.firstBatchMaxTimestamp = outcome.firstBatchMaxTimestamp
    this.maxTimestampKnown = undefined
    this.persistedOffsetEntries = outcome.offsetIndex.length
    this.persistedTimeEntries = outcome.timeIndex.length
    this.active = activeIndexes(outcome.offsetIndex, outcome.timeIndex, outcome.cursor)
  }

  /** Writes the index entries held only in memory, then fdatasync of the .log and both indexes. */
  async flush(): Promise<void> {
    await this.persistIndexes()
    await this.cache.use(this.paths.log, (fh) => fh.datasync())
    await this.cache.use(this.paths.index, (fh) => fh.datasync(), { create: true })
    await this.cache.use(this.paths.timeIndex, (fh) => fh.datasync(), { create: true })
  }

  async flushLog(): Promise<void> {
    await this.cache.use(this.paths.log, (fh) => fh.datasync())
  }

  /**
   * Reads up to `length` bytes of the .log at `position`. The tail of the active segment (the
   * recent batches: what followers and caught-up consumers ask for) was written moments ago and
   * is read on the event loop (file-io.ts says why); older bytes are read by the thread pool.
   */
  async readLog(position: number, length: number): Promise<Buffer> {
    const tail = this.readTailSync(position, length)
    if (tail !== undefined) return tail
    const tailStart = this.active?.recent.tailStart
    if (tailStart !== undefined && position >= tailStart)
      return await this.cache.use(this.paths.log, async (fh) => readAtSync(fh, position, length))
    return await this.cache.use(this.paths.log, (fh) => readAt(fh, position, length))
  }

  /**
   * readLog() of the active segment's tail on the event loop with no promise in between, when
   * its handle is open; undefined otherwise (the caller falls back to readLog).
   */
  readTailSync(position: number, length: number): Buffer | undefined {
    const active = this.active
    const last = active?.lastWrite
    if (last !== undefined && position >= last.position && last.position + last.bytes.length === this.sizeBytes) {
      const from = position - last.position
      return last.bytes.subarray(from, Math.min(from + length, last.bytes.length))
    }
    const tailStart = active?.recent.tailStart
    if (tailStart === undefined || position < tailStart) return undefined
    return this.cache.useSync(this.paths.log, (fh) => readAtSync(fh, position, length))
  }

  /**
   * Cuts the files back to what the in-memory state describes (after a failed append: a partial
   * write beyond sizeBytes, or a partial index write beyond the persisted entries). The in-memory
   * indexes only ever hold published entries, so they need no change.
   */
  async discardUnpublished(): Promise<void> {
    await this.cache.use(this.paths.log, (fh) => fh.truncate(this.sizeBytes), { create: true })
    await this.truncateIndexFilesToPersisted()
  }
  /** Cuts the index files to the entries persisted so far (the files hold a prefix of them). */
  private async truncateIndexFilesToPersisted(): Promise<void> {
    await this.cache.use(
      this.paths.index,
      (fh) => fh.truncate(this.persistedOffsetEntries * OFFSET_INDEX_ENTRY_BYTES),
      {
        create: true,
      },
    )
    await this.cache.use(
      this.paths.timeIndex,
      (fh) => fh.truncate(this.persistedTimeEntries * TIME_INDEX_ENTRY_BYTES),
      {
        create: true,
      },
    )
  }

  /**
   * Renames the files to `<file>.deleted` and points `paths` there, so reads already holding
   * this segment keep working until the files are removed; returns the new file names.
   */
  async renameForDeletion(): Promise<string[]> {
    const old = this.paths
    const renamed: SegmentPaths = {
      log: old.log + DELETED_SUFFIX,
      index: old.index + DELETED_SUFFIX,
      timeIndex: old.timeIndex + DELETED_SUFFIX,
    }
    const out: string[] = []
    for (const key of ['log', 'index', 'timeIndex'] as const) {
      try {
        await fs.rename(old[key], renamed[key])
        out.push(renamed[key])
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      }
    }
    this.paths = renamed
    this.active = undefined
    await Promise.all([old.log, old.index, old.timeIndex].map((p) => this.cache.evict(p)))
    return out
  }

  async evictHandles(): Promise<void> {
    await Promise.all([this.paths.log, this.paths.index, this.paths.timeIndex].map((p) => this.cache.evict(p)))
  }

  private async readWhole(file: string, bytes: number): Promise<Buffer | undefined> {
    if (bytes === 0) return Buffer.alloc(0)
    try {
      const buf = await this.cache.use(file, (fh) => readAt(fh, 0, bytes))
      return buf.length === bytes ? buf : undefined
    } catch {
      return undefined
    }
  }
}
