/**
 * Log compaction (docs/kafka-facts.md §8.2, Kafka `LogCleaner`) for logs whose cleanup.policy
 * includes compact. The log is the clean part [logStart, firstDirty) and the dirty part
 * [firstDirty, cleanable end); the cleanable end is the base of the first segment that is the
 * active one or reaches past the high watermark (or, with min.compaction.lag.ms, the first that
 * holds a record newer than the lag), so the active segment and uncommitted records are never
 * touched. One pass:
 *   1. header walk of the cleanable segments: the last batch of every producer id (empty
 *      batches keep producer state only where it is needed, batch-compactor.ts);
 *   2. offset map (offset-map.ts, fixed budget) of key → latest offset over the dirty part, up to
 *      `mapEnd`: the whole dirty part, or where the map filled (the rest waits for the next pass);
 *   3. the segments holding offsets below mapEnd are recopied in groups (consecutive segments,
 *      at most segment.bytes of input and an int32 offset span, so segments that shrank in
 *      earlier passes merge), each batch through compactBatch. A one-segment group whose
 *      batches all came through unchanged is left alone;
 *   4. a changed group is written as `<base>.log|.index|.timeindex.cleaned`, fdatasynced, and
 *      swapped in under the log's writer queue: the `.log.cleaned` file is renamed to
 *      `<base>.<end>.log.swap` and the directory fsynced — the commit point, since the swap name
 *      says which segments it replaces — then the old segments are renamed to `.deleted`, the
 *      new indexes and the swap file get their final names, and the directory is fsynced. A crash
 *      before the commit leaves `.cleaned` files (deleted at start, old segments intact); after
 *      it, the loader completes the swap (partition-loader.ts);
 *   5. firstDirty moves to mapEnd (persisted in cleaner-offset-checkpoint by the LogManager).
 * Offsets never change, so compacted segments have gaps. Memory is the offset map plus one read
 * chunk and one write buffer. Tombstone horizons seen are remembered per log, so a log whose
 * tombstones expired is cleaned again even with no new dirty data.
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import { decodeRecordBatches, CONTROL_MASK, readBatchHeader, systemClock, type Clock } from '@sluice/protocol'
import type { Logger } from 'pino'
import { compactBatch, type CompactionContext } from './batch-compactor.js'
import { fsyncDir } from '../io/checkpoint-file.js'
import type { FileHandleCache } from '../io/file-handle-cache.js'
import { writeFully } from '../io/file-io.js'
import { freshIndexCursor, indexBatch, maybeTimeEntry, PendingIndexEntries } from '../segment/index-cursor.js'
import { compactionEnabled } from '../log-config.js'
import { cleanedPaths, segmentPaths, swapFileName, type SegmentPaths } from '../segment/log-files.js'
import { OffsetIndexEntries } from '../segment/offset-index.js'
import { OffsetMap } from './offset-map.js'
import type { PartitionLog } from '../partition/partition-log.js'
import { segmentBatches, segmentHeaders } from '../segment/segment-batches.js'
import { writeIndexFiles } from '../segment/segment-scan.js'
import { Segment } from '../segment/segment.js'
import { TimeIndexEntries } from '../segment/time-index.js'

export const DEFAULT_DEDUPE_BUFFER_BYTES = 16 * 1024 * 1024
const MAX_TRACKED_PRODUCERS = 100_000
const WRITE_BUFFER_BYTES = 1024 * 1024
const MAX_RELATIVE_OFFSET = 0x7fffffffn

export type CleanerCrashPoint = 'cleaned' | 'swap' | 'old-renamed'

export interface LogCleanerOptions {
  logger: Logger
  cache: FileHandleCache
  /** Offset-map budget in bytes (24 per key; default 16 MiB). */
  dedupeBufferBytes?: number
  /** Reads "now" for min.compaction.lag.ms and tombstone horizons (default systemClock). */
  clock?: Clock
  /** Passes per clean() call at most (each covers what fits in the map). Default 4. */
  maxPasses?: number
  /** Test hook: throw right after this step of a swap, as a crash would stop there. @internal */
  crashAfter?: CleanerCrashPoint
}

export interface CleanableRange {
  firstDirty: bigint
  /** Base of the first segment that cannot be cleaned (active, or reaching past the high watermark). */
  end: bigint
  /** Leading segments that may be cleaned. */
  segmentCount: number
  cleanBytes: number
  dirtyBytes: number
  dirtyRatio: number
}

export interface CleanResult {
  passes: number
  groupsRewritten: number
  recordsDropped: number
  bytesBefore: number
  bytesAfter: number
  firstDirty: bigint
}

/**
 * The cleanable part of a log, from memory only (no file access); at most `maxSegments` leading
 * segments (min.compaction.lag.ms, see compactionLagLimit).
 */
export function cleanableRange(log: PartitionLog, highWatermark: bigint, maxSegments = Infinity): CleanableRange {
  const segs = log.segmentList
  const activeBase = segs[segs.length - 1]!.baseOffset
  const uncleanable = activeBase < highWatermark ? activeBase : highWatermark
  let count = 0
  while (count < segs.length - 1 && count < maxSegments && segs[count + 1]!.baseOffset <= uncleanable) count++
  const firstDirty = log.firstDirtyOffset > log.logStartOffset ? log.firstDirtyOffset : log.logStartOffset
  let cleanBytes = 0
  let dirtyBytes = 0
  for (let i = 0; i < count; i++) {
    if (segs[i + 1]!.baseOffset > firstDirty) dirtyBytes += segs[i]!.sizeBytes
    else cleanBytes += segs[i]!.sizeBytes
  }
  const total = cleanBytes + dirtyBytes
  return {
    firstDirty,
    end: segs[count]!.baseOffset,
    segmentCount: count,
    cleanBytes,
    dirtyBytes,
    dirtyRatio: total === 0 ? 0 : dirtyBytes / total,
  }
}

/**
 * min.compaction.lag.ms (Kafka): how many of the first `count` segments hold only records with a
 * timestamp at or before `newestAllowedMs`; the first segment with a newer record and everything
 * after it wait.
 */
async function compactionLagLimit(segs: readonly Segment[], count: number, newestAllowedMs: number): Promise<number> {
  for (let i = 0; i < count; i++) {
    if (Number(await segs[i]!.maxTimestamp()) > newestAllowedMs) return i
  }
  return count
}

export class LogCleaner {
  private readonly map: OffsetMap
  private readonly clock: Clock
  /** Earliest delete horizon of a tombstone each log still holds (ms). */
  private readonly horizons = new WeakMap<PartitionLog, number>()

  constructor(private readonly options: LogCleanerOptions) {
    this.map = new OffsetMap(options.dedupeBufferBytes ?? DEFAULT_DEDUPE_BUFFER_BYTES)
    this.clock = options.clock ?? systemClock
  }

  /**
   * Whether `log` should be cleaned now: compaction on, and a dirty share of at least
   * min.cleanable.dirty.ratio or an expired tombstone. Memory only, except that with
   * min.compaction.lag.ms the largest timestamp of each cleanable segment is needed (read once
   * from its time index, then cached by the segment).
   */
  async needsCleaning(log: PartitionLog, highWatermark: bigint): Promise<{ due: boolean; range: CleanableRange }> {
    const config = log.currentConfig
    let range = cleanableRange(log, highWatermark)
    if (config.minCompactionLagMs > 0 && range.segmentCount > 0) {
      range = cleanableRange(
        log,
        highWatermark,
        await compactionLagLimit(log.segmentList, range.segmentCount, this.clock.nowMs() - config.minCompactionLagMs),
      )
    }
    const dirty = range.firstDirty < range.end && range.dirtyRatio >= config.minCleanableDirtyRatio
    const horizonDue = (this.horizons.get(log) ?? Infinity) <= this.clock.nowMs()
    return { due: compactionEnabled(config) && range.segmentCount > 0 && (dirty || horizonDue), range }
  }

  /** Runs passes until the dirty part is clean (at most maxPasses). `force` ignores the dirty ratio. */
  async clean(log: PartitionLog, highWatermark: bigint, options: { force?: boolean } = {}): Promise<CleanResult> {
    const result: CleanResult = {
      passes: 0,
      groupsRewritten: 0,
      recordsDropped: 0,
      bytesBefore: 0,
      bytesAfter: 0,
      firstDirty: log.firstDirtyOffset,
    }
    const maxPasses = this.options.maxPasses ?? 4
    for (let pass = 0; pass < maxPasses; pass++) {
      const { due, range } = await this.needsCleaning(log, highWatermark)
      if (range.segmentCount === 0 || !compactionEnabled(log.currentConfig)) break
      // The ratio decides whether to start; once started, the whole dirty part is cleaned.
      const go = pass === 0 ? due || options.force === true : range.firstDirty < range.end
      if (!go) break
      const progressed = await this.pass(log, range, result)
      result.passes++
      if (!progressed || log.firstDirtyOffset >= range.end) break
    }
    result.firstDirty = log.firstDirtyOffset
    if (result.groupsRewritten > 0) {
      this.options.logger.info(
        { topic: log.topic, partition: log.partition, ...result, firstDirty: result.firstDirty.toString() },
        'log compacted',
      )
    }
    return result
  }

  /** One pass; false if it could not move firstDirty or swap a group (nothing to gain by repeating now). */
  private async pass(log: PartitionLog, range: CleanableRange, result: CleanResult): Promise<boolean> {
    const segs = log.segmentList.slice(0, range.segmentCount)
    const lastBatchOf = await this.producerLastBatches(segs)
    const mapEnd = await this.buildMap(segs, range)
    if (mapEnd === range.firstDirty && range.firstDirty < range.end) {
      this.options.logger.warn(
        { topic: log.topic, partition: log.partition },
        'cleaner offset map too small for a single key; compaction stalls',
      )
    }
    let earliestHorizon = Infinity
    const ctx: CompactionContext = {
      map: this.map,
      mapEnd,
      now: this.clock.nowMs(),
      deleteRetentionMs: log.currentConfig.deleteRetentionMs,
      isLastBatchOfProducer: (pid, base) =>
        lastBatchOf.overflow ? (lastBatchOf.map.get(pid) ?? base) === base : lastBatchOf.map.get(pid) === base,
    }
    const all = log.segmentList
    const toCopy = segs.filter((s) => s.baseOffset < mapEnd)
    for (const group of groupSegments(toCopy, all, log.currentConfig.segmentBytes)) {
      const end = all[all.indexOf(group[group.length - 1]!) + 1]!.baseOffset
      const written = await this.writeGroup(log, group, ctx)
      if (written.tombstoneHorizon < earliestHorizon) earliestHorizon = written.tombstoneHorizon
      if (written.output === undefined) continue
      const out = written.output
      const swapped = await log.replaceSegments(group, (old) => this.install(log, group[0]!.baseOffset, end, out, old))
      if (!swapped) {
        await removeFiles(out.paths)
        return false
      }
      result.groupsRewritten++
      result.recordsDropped += written.recordsDropped
      result.bytesBefore += group.reduce((n, s) => n + s.sizeBytes, 0)
      result.bytesAfter += out.sizeBytes
    }
    this.horizons.set(log, earliestHorizon)
    log.markCleanedUpTo(mapEnd)
    return mapEnd > range.firstDirty || result.groupsRewritten > 0
  }

  /** Last batch base offset of each producer id in `segs` (headers only). */
  private async producerLastBatches(
    segs: readonly Segment[],
  ): Promise<{ map: Map<bigint, bigint>; overflow: boolean }> {
    const map = new Map<bigint, bigint>()
    let overflow = false
    for (const seg of segs) {
      for await (const h of segmentHeaders(seg, this.options.cache)) {
        if (h.producerId < 0n) continue
        if (map.size >= MAX_TRACKED_PRODUCERS && !map.has(h.producerId)) {
          overflow = true
          continue
        }
        map.set(h.producerId, h.baseOffset)
      }
    }
    return { map, overflow }
  }

  /** Fills the offset map from the dirty part; returns the offset where it stopped (range.end when all fit). */
  private async buildMap(segs: readonly Segment[], range: CleanableRange): Promise<bigint> {
    this.map.clear()
    for (let i = 0; i < segs.length; i++) {
      const next = i + 1 < segs.length ? segs[i + 1]!.baseOffset : range.end
      if (next <= range.firstDirty) continue
      for await (const batch of segmentBatches(segs[i]!)) {
        const h = readBatchHeader(batch, 0)!
        if ((h.attributes & CONTROL_MASK) !== 0 || h.baseOffset + BigInt(h.lastOffsetDelta) < range.firstDirty) continue
        for (const r of decodeRecordBatches(batch)[0]?.records ?? []) {
          if (r.offset < range.firstDirty || r.key === null) continue
          if (!this.map.put(OffsetMap.hashKey(r.key), r.offset)) return r.offset
        }
      }
    }
    return range.end
  }

  /** Writes the compacted group to `.cleaned` files; `output` undefined when nothing changed (files removed). */
  private async writeGroup(
    log: PartitionLog,
    group: readonly Segment[],
    ctx: CompactionContext,
  ): Promise<{
    output: CleanedOutput | undefined
    recordsDropped: number
    tombstoneHorizon: number
  }> {
    const base = group[0]!.baseOffset
    const paths = cleanedPaths(log.dir, base)
    const cache = this.options.cache
    await Promise.all([paths.log, paths.index, paths.timeIndex].map((p) => cache.evict(p)))
    const cursor = freshIndexCursor(base)
    const pending = new PendingIndexEntries()
    const intervalBytes = log.currentConfig.indexIntervalBytes
    // Merging several small segments into one is worth a rewrite by itself.
    let changed = group.length > 1
    let recordsDropped = 0
    let tombstoneHorizon = Infinity
    let position = 0
    let firstBatchMaxTimestamp: bigint | undefined
    let chunks: Buffer[] = []
    let chunkBytes = 0
    const flushChunks = async (): Promise<void> => {
      if (chunkBytes === 0) return
      const buf = Buffer.concat(chunks, chunkBytes)
      await cache.use(paths.log, (fh) => writeFully(fh, buf, 0, buf.length, position - chunkBytes), { create: true })
      chunks = []
      chunkBytes = 0
    }
    try {
      await cache.use(paths.log, (fh) => fh.truncate(0), { create: true })
      for (const seg of group) {
        for await (const batch of segmentBatches(seg)) {
          const res = compactBatch(batch, ctx)
          changed ||= res.changed
          recordsDropped += res.recordsDropped
          if (res.tombstoneHorizon !== undefined && res.tombstoneHorizon < tombstoneHorizon)
            tombstoneHorizon = res.tombstoneHorizon
          for (const b of res.out) {
            const h = readBatchHeader(b, 0)!
            indexBatch(
              cursor,
              pending,
              base,
              position,
              b.length,
              h.baseOffset + BigInt(h.lastOffsetDelta),
              h.maxTimestamp,
              intervalBytes,
            )
            firstBatchMaxTimestamp ??= h.maxTimestamp
            chunks.push(b)
            chunkBytes += b.length
            position += b.length
            if (chunkBytes >= WRITE_BUFFER_BYTES) await flushChunks()
          }
        }
      }
      if (!changed) {
        await removeFiles(paths)
        return { output: undefined, recordsDropped: 0, tombstoneHorizon }
      }
      await flushChunks()
      maybeTimeEntry(cursor, pending, base)
      const offsetIndex = new OffsetIndexEntries(pending.offsetCount)
      for (let i = 0; i < pending.offsetCount; i++) offsetIndex.append(pending.offsetRel[i]!, pending.offsetPos[i]!)
      const timeIndex = new TimeIndexEntries(pending.timeCount)
      for (let i = 0; i < pending.timeCount; i++) timeIndex.append(pending.timeTs[i]!, pending.timeRel[i]!)
      await writeIndexFiles(cache, paths, offsetIndex, timeIndex)
      for (const file of [paths.log, paths.index, paths.timeIndex]) await cache.use(file, (fh) => fh.datasync())
      if (this.options.crashAfter === 'cleaned') throw new Error('simulated crash after writing the cleaned files')
      return {
        output: {
          paths,
          sizeBytes: position,
          offsetIndexEntries: offsetIndex.length,
          timeIndexEntries: timeIndex.length,
          firstBatchMaxTimestamp,
          maxTimestamp: cursor.maxTimestampSoFar,
        },
        recordsDropped,
        tombstoneHorizon,
      }
    } catch (err) {
      if (this.options.crashAfter !== 'cleaned') await removeFiles(paths)
      throw err
    } finally {
      await Promise.all([paths.log, paths.index, paths.timeIndex].map((p) => cache.evict(p)))
    }
  }

  /** The swap (see the module comment); runs under the log's writer queue. */
  private async install(
    log: PartitionLog,
    base: bigint,
    end: bigint,
    out: CleanedOutput,
    old: readonly Segment[],
  ): Promise<{ segment: Segment; oldFiles: string[] }> {
    const swap = path.join(log.dir, swapFileName(base, end))
    await fs.rename(out.paths.log, swap)
    await fsyncDir(log.dir)
    if (this.options.crashAfter === 'swap') throw new Error('simulated crash after committing the swap')
    const oldFiles: string[] = []
    for (const seg of old) oldFiles.push(...(await seg.renameForDeletion()))
    if (this.options.crashAfter === 'old-renamed') throw new Error('simulated crash after renaming the old segments')
    const final = segmentPaths(log.dir, base)
    await fs.rename(out.paths.index, final.index)
    await fs.rename(out.paths.timeIndex, final.timeIndex)
    await fs.rename(swap, final.log)
    await fsyncDir(log.dir)
    const segment = new Segment(base, final, this.options.cache, {
      sizeBytes: out.sizeBytes,
      nextOffset: end,
      offsetIndexEntries: out.offsetIndexEntries,
      timeIndexEntries: out.timeIndexEntries,
      firstBatchMaxTimestamp: out.firstBatchMaxTimestamp,
      maxTimestamp: out.maxTimestamp,
    })
    return { segment, oldFiles }
  }
}

interface CleanedOutput {
  paths: SegmentPaths
  sizeBytes: number
  offsetIndexEntries: number
  timeIndexEntries: number
  firstBatchMaxTimestamp: bigint | undefined
  maxTimestamp: bigint
}

/**
 * Splits consecutive segments into groups of at most `maxBytes` input (a lone larger segment is
 * its own group) whose offsets stay within int32 of the group's base, so merged segments keep
 * valid relative offsets. `all` is the whole segment list (for each segment's end).
 */
export function groupSegments(segs: readonly Segment[], all: readonly Segment[], maxBytes: number): Segment[][] {
  const nextBase = new Map<Segment, bigint>()
  for (let i = 0; i + 1 < all.length; i++) nextBase.set(all[i]!, all[i + 1]!.baseOffset)
  const groups: Segment[][] = []
  let current: Segment[] = []
  let bytes = 0
  for (const seg of segs) {
    const end = nextBase.get(seg) ?? seg.nextOffset
    const first = current[0]
    if (first !== undefined && (bytes + seg.sizeBytes > maxBytes || end - first.baseOffset > MAX_RELATIVE_OFFSET)) {
      groups.push(current)
      current = []
      bytes = 0
    }
    current.push(seg)
    bytes += seg.sizeBytes
  }
  if (current.length > 0) groups.push(current)
  return groups
}

async function removeFiles(paths: SegmentPaths): Promise<void> {
  await Promise.all([paths.log, paths.index, paths.timeIndex].map((f) => fs.rm(f, { force: true })))
}
