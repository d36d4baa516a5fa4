import fsSync from 'node:fs'
// The active segment's recent-batch list (tail reads without a header scan): the list itself,
// and reads through PartitionLog near the log end, where it answers.
import fs from 'node:fs/promises'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { readBatchHeader } from '@sluice/protocol'
import { LogManager } from '../manager/log-manager.js'
import { appendLeader, captureLogger, splitBatches, testConfig } from '../__fixtures__/log-test-env.js'
import { RecentBatches } from './recent-batches.js'
import { makeBatch, makeTempDir } from '../__fixtures__/test-batches.js'

describe('RecentBatches', () => {
  /** Batches of 3 offsets and 100 bytes each, the first at relative offset `base` and position `pos`. */
  function filled(n: number, base = 0, pos = 0): RecentBatches {
    const r = new RecentBatches()
    for (let i = 0; i < n; i++) r.push(base + i * 3, base + i * 3 + 2, pos + i * 100, 100)
    return r
  }

  it('finds the batch holding an offset, or the end; any offset when it holds the first batch', () => {
    const r = filled(5)
    expect(r.find(-1, 500)).toEqual({ position: 0, sizeBytes: 100, relBase: 0 })
    expect(r.find(0, 500)).toEqual({ position: 0, sizeBytes: 100, relBase: 0 })
    expect(r.find(7, 500)).toEqual({ position: 200, sizeBytes: 100, relBase: 6 })
    expect(r.find(14, 500)).toEqual({ position: 400, sizeBytes: 100, relBase: 12 })
    expect(r.find(15, 500)).toBe('end')
    // Batches appended after the reader's snapshot of the size do not count.
    expect(r.find(13, 400)).toBe('end')
    expect(r.find(11, 400)).toEqual({ position: 300, sizeBytes: 100, relBase: 9 })
    expect(new RecentBatches().find(0, 0)).toBeUndefined()
  })

  it('keeps only the newest batches and says when an offset is older than those', () => {
    const r = filled(100, 1000, 5000)
    expect(r.length).toBe(32)
    // Entries 68..99 remain: relative offsets 1204..1299, positions 11800..14900.
    expect(r.find(1203, 15000)).toBeUndefined()
    expect(r.find(1204, 15000)).toEqual({ position: 11800, sizeBytes: 100, relBase: 1204 })
    expect(r.find(1299, 15000)).toEqual({ position: 14900, sizeBytes: 100, relBase: 1297 })
  })

  it('spans whole batches within maxBytes (the first whatever its size with minOneBatch) that end below relMax', () => {
    const r = filled(5) // relative offsets 0-14, positions 0-499, 100 bytes each
    expect(r.span(4, 500, 250, Number.POSITIVE_INFINITY, false)).toEqual({ position: 100, bytes: 200, relBase: 3 })
    expect(r.span(4, 500, 1000, Number.POSITIVE_INFINITY, false)).toEqual({ position: 100, bytes: 400, relBase: 3 })
    expect(r.span(4, 500, 50, Number.POSITIVE_INFINITY, false)).toEqual({ position: 100, bytes: 0, relBase: 3 })
    expect(r.span(4, 500, 50, Number.POSITIVE_INFINITY, true)).toEqual({ position: 100, bytes: 100, relBase: 3 })
    // relMax is exclusive on a batch's last offset: the batch 6-8 ends at 8, not below 8.
    expect(r.span(4, 500, 1000, 8, false)).toEqual({ position: 100, bytes: 100, relBase: 3 })
    expect(r.span(4, 500, 1000, 9, true)).toEqual({ position: 100, bytes: 200, relBase: 3 })
    expect(r.span(4, 500, 1000, 5, true)).toEqual({ position: 100, bytes: 0, relBase: 3 })
    // Not past the reader's snapshot of the size; 'end' and unknown as find says.
    expect(r.span(4, 300, 1000, Number.POSITIVE_INFINITY, false)).toEqual({ position: 100, bytes: 200, relBase: 3 })
    expect(r.span(15, 500, 1000, Number.POSITIVE_INFINITY, true)).toBe('end')
    expect(filled(40).span(0, 4000, 1000, Number.POSITIVE_INFINITY, true)).toBeUndefined()
  })

  it('after a truncation drops the cut batches and follows new appends', () => {
    const r = filled(40)
    r.truncateToPosition(3500)
    expect(r.find(105, 4000)).toBe('end')
    expect(r.find(104, 4000)).toEqual({ position: 3400, sizeBytes: 100, relBase: 102 })
    r.push(105, 110, 3500, 300) // a follower batch after a gap (103-104 is the tail of the previous batch)
    expect(r.find(105, 3800)).toEqual({ position: 3500, sizeBytes: 300, relBase: 105 })
    r.truncateToPosition(0)
    expect(r.length).toBe(0)
    expect(r.find(0, 100)).toBeUndefined()
  })
})

describe('tail reads of a partition log', () => {
  it('read every offset near the end correctly, with one file read each (none for the last append)', async () => {
    const dataDir = await makeTempDir()
    const manager = await LogManager.open({ dataDir, logger: captureLogger().logger })
    onTestFinished(async () => {
      await manager.close()
      await fs.rm(dataDir, { recursive: true, force: true })
    })
    // indexIntervalBytes large: without the list, a read near the end scans headers from position 0.
    const log = await manager.getOrCreateLog('t', 0, testConfig({ indexIntervalBytes: 1 << 20 }))
    const stored: Buffer[] = []
    for (let i = 0; i < 60; i++) {
      const r = await appendLeader(
        log,
        [makeBatch({ records: 1 + (i % 4), valueBytes: 50, timestamp: BigInt(i), fill: i })],
        1,
      )
      stored.push(r.stamped)
    }
    const all = Buffer.concat(stored)
    const fh = await fs.open(`${dataDir}/t-0/00000000000000000000.log`)
    const read = vi.spyOn(Object.getPrototypeOf(fh) as { read: (...args: unknown[]) => unknown }, 'read')
    await fh.close()
    // The tail was written moments ago, so it is read on the event loop (file-io.ts), not by the thread pool.
    const readSync = vi.spyOn(fsSync, 'readSync')
    onTestFinished(() => {
      read.mockRestore()
      readSync.mockRestore()
    })
    const end = log.logEndOffset
    // The last append (4 records) is still in memory (segment.ts lastWrite): no file read at all.
    const lastAppendBase = end - 4n
    for (let o = end - 40n; o < end; o++) {
      read.mockClear()
      readSync.mockClear()
      const { records } = await log.read(o, 1 << 20)
      expect(readSync).toHaveBeenCalledTimes(o >= lastAppendBase ? 0 : 1)
      expect(read).not.toHaveBeenCalled()
      const first = readBatchHeader(records)!
      expect(first.baseOffset <= o && o <= first.baseOffset + BigInt(first.lastOffsetDelta)).toBe(true)
      expect(records.equals(all.subarray(all.length - records.length))).toBe(true)
      // Bounded by a high watermark, and by maxBytes with KIP-74's first batch.
      const hw = o + 3n
      const bounded = splitBatches((await log.read(o, 1 << 20, { maxOffset: hw })).records)
      for (const b of bounded) {
        const h = readBatchHeader(b)!
        expect(h.baseOffset + BigInt(h.lastOffsetDelta) < hw).toBe(true)
      }
      const one = (await log.read(o, 1, { minOneBatch: true })).records
      expect(one.equals(records.subarray(0, readBatchHeader(records)!.sizeBytes))).toBe(true)
    }
    // Older offsets (not in the list) fall back to the header scan and read the same bytes.
    expect((await log.read(0n, 1 << 30)).records.equals(all)).toBe(true)
  })
})

describe('the last append kept in memory', () => {
  it('is not served once truncated away: reads then see what the file holds', async () => {
    const dataDir = await makeTempDir()
    const manager = await LogManager.open({ dataDir, logger: captureLogger().logger })
    onTestFinished(async () => {
      await manager.close()
      await fs.rm(dataDir, { recursive: true, force: true })
    })
    const log = await manager.getOrCreateLog('t', 0, testConfig())
    const first = await appendLeader(log, [makeBatch({ records: 2, valueBytes: 40, timestamp: 5n, fill: 1 })], 1)
    const second = await appendLeader(log, [makeBatch({ records: 2, valueBytes: 40, timestamp: 5n, fill: 2 })], 1)
    expect((await log.read(2n, 1 << 20)).records.equals(second.stamped)).toBe(true)
    await log.truncateTo(2n)
    expect(log.logEndOffset).toBe(2n)
    expect((await log.read(0n, 1 << 20)).records.equals(first.stamped)).toBe(true)
    // A different batch at the same place: its bytes, never the truncated ones.
    const third = await appendLeader(log, [makeBatch({ records: 2, valueBytes: 40, timestamp: 5n, fill: 3 })], 1)
    expect(third.stamped.equals(second.stamped)).toBe(false)
    expect((await log.read(2n, 1 << 20)).records.equals(third.stamped)).toBe(true)
    expect((await log.read(0n, 1 << 20)).records.equals(Buffer.concat([first.stamped, third.stamped]))).toBe(true)
    // Two batches in one append, the second truncated away: the first still reads whole, alone.
    const pair = await appendLeader(
      log,
      [4, 5].map((fill) => makeBatch({ records: 2, valueBytes: 40, timestamp: 5n, fill })),
      1,
    )
    const [kept] = splitBatches(pair.stamped)
    await log.truncateTo(6n)
    expect((await log.read(4n, 1 << 20)).records.equals(kept!)).toBe(true)
  })
})
