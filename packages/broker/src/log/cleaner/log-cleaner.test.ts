import fs from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { decodeRecordBatches, DELETE_HORIZON_MASK, ManualClock } from '@sluice/protocol'
import type { LogConfig } from '../log-config.js'
import type { CleanerCrashPoint } from './log-cleaner.js'
import { LogManager } from '../manager/log-manager.js'
import { appendLeader, captureLogger, readAll, testConfig, type ReadRecord } from '../__fixtures__/log-test-env.js'
import type { PartitionLog } from '../partition/partition-log.js'
import { keyedBatch, makeTempDir } from '../__fixtures__/test-batches.js'

async function setup(config: Partial<LogConfig> = {}, fileDeleteDelayMs = 0) {
  const dataDir = await makeTempDir('sluice-cleaner-')
  const captured = captureLogger('info')
  let manager = await LogManager.open({ dataDir, logger: captured.logger, fileDeleteDelayMs })
  onTestFinished(async () => {
    await manager.close().catch(() => {})
    await fs.rm(dataDir, { recursive: true, force: true })
  })
  const cfg = testConfig({
    cleanupPolicy: 'compact',
    segmentBytes: 400,
    indexIntervalBytes: 64,
    deleteRetentionMs: 1000,
    ...config,
  })
  const clock = new ManualClock(1_000_000)
  const env = {
    dataDir,
    lines: captured.lines,
    clock,
    log: await manager.getOrCreateLog('c', 0, cfg),
    cleaner: (options: { dedupeBufferBytes?: number; crashAfter?: CleanerCrashPoint; maxPasses?: number } = {}) =>
      manager.createCleaner({ clock, ...options }),
    async reopen(crash: boolean) {
      if (crash) await manager.abandonForTesting()
      else await manager.close()
      manager = await LogManager.open({ dataDir, logger: captured.logger, fileDeleteDelayMs })
      env.log = await manager.getOrCreateLog('c', 0, cfg)
      return env.log
    },
  }
  return env
}

/** Writes `n` single-record batches over `keys` keys: key k<i % keys> = v<i>. */
async function writeKeys(log: PartitionLog, n: number, keys: number, ts = 5000n): Promise<void> {
  for (let i = 0; i < n; i++) await appendLeader(log, [keyedBatch([[`k${i % keys}`, `v${i}`]], ts)])
}

/** key -> value after replaying records in order (null value deletes). */
function replay(records: readonly ReadRecord[]): Map<string, string> {
  const m = new Map<string, string>()
  for (const r of records) {
    if (r.key === null) continue
    if (r.value === null) m.delete(r.key)
    else m.set(r.key, r.value)
  }
  return m
}

describe('LogCleaner', () => {
  it('keeps the latest record per key in closed segments, offsets unchanged, the active segment untouched', async () => {
    const env = await setup()
    await writeKeys(env.log, 60, 5)
    const before = await readAll(env.log)
    const segmentsBefore = env.log.segmentBaseOffsets.length
    expect(segmentsBefore).toBeGreaterThan(4)
    const activeBase = env.log.segmentBaseOffsets.at(-1)!
    const res = await env.cleaner().clean(env.log, env.log.logEndOffset)
    expect(res.groupsRewritten).toBeGreaterThan(0)
    expect(res.recordsDropped).toBeGreaterThan(0)
    const after = await readAll(env.log)
    expect(replay(after.records)).toEqual(replay(before.records))
    // Every kept record is the original one at its original offset.
    const original = new Map(before.records.map((r) => [r.offset, r]))
    for (const r of after.records) expect(original.get(r.offset)).toEqual(r)
    // Below the active segment, each key once; in the active segment, everything as written.
    const closed = after.records.filter((r) => r.offset < activeBase)
    expect(new Set(closed.map((r) => r.key)).size).toBe(closed.length)
    expect(after.records.filter((r) => r.offset >= activeBase)).toEqual(
      before.records.filter((r) => r.offset >= activeBase),
    )
    expect(env.log.segmentBaseOffsets.at(-1)).toBe(activeBase)
    expect(env.log.firstDirtyOffset).toBe(activeBase)
    // Segments that shrank merge at the next pass.
    await env.cleaner().clean(env.log, env.log.logEndOffset, { force: true })
    expect(env.log.segmentBaseOffsets.length).toBeLessThan(segmentsBefore)
    expect((await readAll(env.log)).records).toEqual(after.records)
    expect(env.log.logStartOffset).toBe(0n)
    // Reads at offsets inside gaps start at the next kept batch.
    for (let o = 0n; o < activeBase; o++) {
      const got = decodeRecordBatches((await env.log.read(o, 1 << 20)).records)[0]
      const expected = after.records.find((r) => r.offset >= o)
      expect(got?.records.find((r) => r.offset >= o)?.offset).toBe(expected?.offset)
    }
    expect((await fs.readdir(path.join(env.dataDir, 'c-0'))).filter((f) => /cleaned|swap|deleted/.test(f))).toEqual([])
  })

  it('survives a restart: compacted segments with gaps load after a clean and after an unclean stop', async () => {
    const env = await setup()
    await writeKeys(env.log, 50, 3)
    await env.cleaner().clean(env.log, env.log.logEndOffset)
    const expected = await readAll(env.log)
    const end = env.log.logEndOffset
    for (const crash of [false, true]) {
      const log = await env.reopen(crash)
      expect(log.logEndOffset).toBe(end)
      expect(await readAll(log)).toEqual(expected)
    }
    await writeKeys(env.log, 5, 3)
    expect(env.log.logEndOffset).toBe(end + 5n)
  })

  it('removes tombstones only once delete.retention.ms has passed since the cleaning that first kept them', async () => {
    const env = await setup({ segmentBytes: 300 })
    await writeKeys(env.log, 12, 3)
    await appendLeader(env.log, [keyedBatch([['k1', null]], 6000n)])
    await writeKeys(env.log, 12, 1, 7000n) // k0 only: pushes the tombstone out of the active segment
    const cleaner = env.cleaner()
    await cleaner.clean(env.log, env.log.logEndOffset)
    let all = await readAll(env.log)
    expect(all.records.filter((r) => r.key === 'k1')).toEqual([{ offset: 12n, key: 'k1', value: null }])
    const tombstoneBatch = all.headers.find((h) => h.baseOffset === 12n)!
    expect(tombstoneBatch.attributes & DELETE_HORIZON_MASK).toBe(DELETE_HORIZON_MASK)
    expect(tombstoneBatch.baseTimestamp).toBe(BigInt(env.clock.nowMs() + 1000))
    env.clock.advance(999)
    expect((await cleaner.needsCleaning(env.log, env.log.logEndOffset)).due).toBe(false)
    await cleaner.clean(env.log, env.log.logEndOffset, { force: true })
    expect((await readAll(env.log)).records.some((r) => r.key === 'k1')).toBe(true)
    env.clock.advance(1)
    expect((await cleaner.needsCleaning(env.log, env.log.logEndOffset)).due).toBe(true)
    await cleaner.clean(env.log, env.log.logEndOffset)
    all = await readAll(env.log)
    expect(all.records.some((r) => r.key === 'k1')).toBe(false)
    expect(replay(all.records)).toEqual(
      new Map([
        ['k0', 'v11'],
        ['k2', 'v11'],
      ]),
    )
  })

  it('starts only at min.cleanable.dirty.ratio, taken from the log config', async () => {
    const env = await setup({ minCleanableDirtyRatio: 0.99 })
    await writeKeys(env.log, 40, 4)
    await env.cleaner().clean(env.log, env.log.logEndOffset, { force: true })
    await writeKeys(env.log, 20, 4) // some dirty bytes, well below 99% of the cleanable log
    const cleaner = env.cleaner()
    const { due, range } = await cleaner.needsCleaning(env.log, env.log.logEndOffset)
    expect(range.dirtyRatio).toBeGreaterThan(0)
    expect(range.dirtyRatio).toBeLessThan(0.99)
    expect(due).toBe(false)
    env.log.updateConfig({ ...env.log.currentConfig, minCleanableDirtyRatio: range.dirtyRatio })
    expect((await cleaner.needsCleaning(env.log, env.log.logEndOffset)).due).toBe(true)
  })

  it('leaves segments holding records newer than min.compaction.lag.ms alone', async () => {
    const env = await setup({ minCompactionLagMs: 10_000 })
    const now = BigInt(env.clock.nowMs())
    await writeKeys(env.log, 30, 3, now - 20_000n) // old enough
    await writeKeys(env.log, 30, 3, now - 1_000n) // too recent
    const cleaner = env.cleaner()
    const limited = (await cleaner.needsCleaning(env.log, env.log.logEndOffset)).range
    await cleaner.clean(env.log, env.log.logEndOffset, { force: true })
    const after = await readAll(env.log)
    // Every record from the first recent segment on is still there; older duplicates are gone.
    expect(after.records.filter((r) => r.offset >= limited.end)).toHaveLength(
      Number(env.log.logEndOffset - limited.end),
    )
    expect(after.records.filter((r) => r.offset < 30n).length).toBeLessThan(30)
    expect(limited.end).toBeGreaterThanOrEqual(20n)
    expect(limited.end).toBeLessThanOrEqual(30n)
    // Once time passes, the rest is cleanable too.
    env.clock.advance(10_000)
    expect((await cleaner.needsCleaning(env.log, env.log.logEndOffset)).range.end).toBeGreaterThan(limited.end)
  })

  it('never cleans past the high watermark', async () => {
    const env = await setup()
    await writeKeys(env.log, 40, 2)
    const res = await env.cleaner().clean(env.log, 3n)
    expect(res.groupsRewritten).toBe(0)
    expect((await readAll(env.log)).records).toHaveLength(40)
  })

  it('cleans in several passes when the dirty range does not fit in the offset map, with the same result', async () => {
    const small = await setup()
    const big = await setup()
    for (const env of [small, big]) await writeKeys(env.log, 80, 12)
    const tiny = small.cleaner({ dedupeBufferBytes: 24 * 5, maxPasses: 50 })
    const res = await tiny.clean(small.log, small.log.logEndOffset)
    expect(res.passes).toBeGreaterThan(1)
    await big.cleaner().clean(big.log, big.log.logEndOffset)
    expect((await readAll(small.log)).records).toEqual((await readAll(big.log)).records)
  })

  it('keeps batch boundaries: kept records stay in their batch with their original offset deltas (gaps inside the batch)', async () => {
    const env = await setup()
    await appendLeader(env.log, [
      keyedBatch(
        [
          ['x', '1'],
          ['a', '1'],
          ['y', '1'],
          ['a', '2'],
        ],
        5000n,
        { producerId: 9n, producerEpoch: 0, baseSequence: 0 },
      ),
    ])
    await appendLeader(env.log, [
      keyedBatch(
        [
          ['c', '1'],
          ['b', '1'],
          ['b', '2'],
          ['d', '1'],
        ],
        5000n,
        { producerId: 9n, producerEpoch: 0, baseSequence: 4, compression: 'gzip' },
      ),
    ])
    await writeKeys(env.log, 20, 1) // key k0 only: pushes both batches into closed segments
    const before = await readAll(env.log)
    await env.cleaner().clean(env.log, env.log.logEndOffset, { force: true })
    const { headers, records } = await readAll(env.log)
    expect(records.filter((r) => r.offset < 8n)).toEqual(
      before.records.filter((r) => r.offset < 8n && r.offset !== 1n && r.offset !== 5n),
    )
    // Same two batches, same base offsets, sequences and compression; one record fewer each.
    const p9 = headers
      .filter((h) => h.producerId === 9n)
      .map((h) => [h.baseOffset, h.lastOffsetDelta, h.baseSequence, h.recordCount, h.attributes & 7])
    expect(p9).toEqual([
      [0n, 3, 0, 3, 0],
      [4n, 3, 4, 3, 1],
    ])
  })

  it('keeps producer metadata: an empty batch carries the last sequence when the last record goes', async () => {
    const env = await setup()
    await appendLeader(env.log, [
      keyedBatch(
        [
          ['a', '1'],
          ['b', '1'],
          ['c', '1'],
        ],
        5000n,
        { producerId: 7n, producerEpoch: 2, baseSequence: 10 },
      ),
    ])
    await appendLeader(env.log, [
      keyedBatch(
        [
          ['c', '2'],
          ['x', '1'],
        ],
        5000n,
        { producerId: 8n, producerEpoch: 0, baseSequence: 0 },
      ),
    ])
    await writeKeys(env.log, 20, 1) // key k0, pushes both into closed segments
    await env.cleaner().clean(env.log, env.log.logEndOffset)
    const { headers, records } = await readAll(env.log)
    expect(records.filter((r) => r.offset < 5n)).toEqual([
      { offset: 0n, key: 'a', value: '1' },
      { offset: 1n, key: 'b', value: '1' },
      { offset: 3n, key: 'c', value: '2' },
      { offset: 4n, key: 'x', value: '1' },
    ])
    // The producer's last batch keeps its last offset delta (its last sequence) though its last record went.
    const p7 = headers
      .filter((h) => h.producerId === 7n)
      .map((h) => [h.baseOffset, h.lastOffsetDelta, h.baseSequence, h.recordCount, h.producerEpoch])
    expect(p7).toEqual([[0n, 2, 10, 2, 2]])
  })
})

describe('LogCleaner crash safety', () => {
  for (const point of ['cleaned', 'swap', 'old-renamed'] as const) {
    it(`a crash after "${point}" leaves either the old or the compacted log, never a mix`, async () => {
      const env = await setup()
      await writeKeys(env.log, 50, 4)
      const before = await readAll(env.log)
      await expect(env.cleaner({ crashAfter: point }).clean(env.log, env.log.logEndOffset)).rejects.toThrow(
        /simulated crash/,
      )
      const log = await env.reopen(true)
      const after = await readAll(log)
      expect(replay(after.records)).toEqual(replay(before.records))
      if (point === 'cleaned') expect(after).toEqual(before)
      else expect(after.records.length).toBeLessThan(before.records.length)
      const original = new Map(before.records.map((r) => [r.offset, r]))
      for (const r of after.records) expect(original.get(r.offset)).toEqual(r)
      expect((await fs.readdir(path.join(env.dataDir, 'c-0'))).filter((f) => /cleaned|swap|deleted/.test(f))).toEqual(
        [],
      )
      // The next pass finishes the job.
      await env.cleaner().clean(log, log.logEndOffset, { force: true })
      expect(replay((await readAll(log)).records)).toEqual(replay(before.records))
    })
  }
})
