import fs from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { checkBatchAt, isSluiceError, readBatchHeader, type SluiceError, validateBatches } from '@sluice/protocol'
import { LogManager } from '../manager/log-manager.js'
import type { LogConfig } from '../log-config.js'
import { appendLeader, captureLogger, splitBatches, testConfig } from '../__fixtures__/log-test-env.js'
import { makeBatch, makeTempDir } from '../__fixtures__/test-batches.js'
import type { PartitionLog } from './partition-log.js'

async function openLog(
  config: Partial<LogConfig> = {},
): Promise<{ log: PartitionLog; manager: LogManager; dataDir: string }> {
  const dataDir = await makeTempDir()
  const { logger } = captureLogger()
  const manager = await LogManager.open({ dataDir, logger })
  onTestFinished(async () => {
    await manager.close().catch(() => {})
    await fs.rm(dataDir, { recursive: true, force: true })
  })
  const log = await manager.getOrCreateLog('orders', 0, testConfig(config))
  return { log, manager, dataDir }
}

interface Written {
  base: bigint
  last: bigint
  bytes: Buffer
  maxTimestamp: bigint
}

/** Appends `count` batches of varying shape; returns them as stored (stamped). */
async function fill(log: PartitionLog, count: number, startTs = 1000n): Promise<Written[]> {
  const out: Written[] = []
  for (let i = 0; i < count; i++) {
    const records = 1 + (i % 4)
    const batch = makeBatch({
      records,
      valueBytes: 20 + ((i * 37) % 150),
      timestamp: startTs + BigInt(i * 10),
      fill: i & 0xff,
    })
    const r = await appendLeader(log, [batch], 1)
    out.push({ base: r.firstOffset, last: r.lastOffset, bytes: r.stamped, maxTimestamp: r.maxTimestamp })
  }
  return out
}

async function expectSluiceError(p: Promise<unknown>, code: string): Promise<SluiceError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(isSluiceError(err)).toBe(true)
  expect((err as SluiceError).code).toBe(code)
  return err as SluiceError
}

describe('PartitionLog append and read', () => {
  it('round-trips across several segment rolls; a read at every offset starts with the batch holding it', async () => {
    const { log, dataDir } = await openLog({ segmentBytes: 1024, indexIntervalBytes: 100 })
    const written = await fill(log, 60)
    expect(log.logStartOffset).toBe(0n)
    expect(log.logEndOffset).toBe(written[written.length - 1]!.last + 1n)
    expect(log.segmentBaseOffsets.length).toBeGreaterThan(4)
    const files = await fs.readdir(path.join(dataDir, 'orders-0'))
    expect(files).toContain('00000000000000000000.log')
    expect(files.filter((f) => f.endsWith('.log'))).toHaveLength(log.segmentBaseOffsets.length)
    for (const f of files.filter((f) => f.endsWith('.log'))) {
      expect((await fs.stat(path.join(dataDir, 'orders-0', f))).size).toBeLessThanOrEqual(1024)
    }
    const all = Buffer.concat(written.map((w) => w.bytes))
    for (let offset = 0n; offset < log.logEndOffset; offset++) {
      const idx = written.findIndex((w) => w.base <= offset && offset <= w.last)
      const one = await log.read(offset, 1, { minOneBatch: true })
      expect(one.firstOffset).toBe(written[idx]!.base)
      expect(one.records.equals(written[idx]!.bytes)).toBe(true)
      const rest = await log.read(offset, 1 << 20)
      const from = written.slice(0, idx).reduce((n, w) => n + w.bytes.length, 0)
      expect(rest.records.equals(all.subarray(from))).toBe(true)
    }
  })

  it('stamps offsets and the leader epoch into the stored batches without breaking their CRC', async () => {
    const { log } = await openLog()
    await appendLeader(log, [makeBatch({ records: 3, valueBytes: 5, timestamp: 10n })], 4)
    const r = await appendLeader(
      log,
      [
        makeBatch({ records: 2, valueBytes: 5, timestamp: 11n }),
        makeBatch({ records: 1, valueBytes: 5, timestamp: 12n }),
      ],
      4,
    )
    expect(r).toMatchObject({ firstOffset: 3n, lastOffset: 5n, maxTimestamp: 12n })
    const { records } = await log.read(0n, 1 << 20)
    const headers = validateBatches(records).map((s) => readBatchHeader(records, s.position)!)
    expect(headers.map((h) => [h.baseOffset, h.partitionLeaderEpoch])).toEqual([
      [0n, 4],
      [3n, 4],
      [5n, 4],
    ])
  })

  it('honours maxBytes (whole batches only) and minOneBatch (KIP-74)', async () => {
    const { log } = await openLog({ segmentBytes: 4096 })
    const w = await fill(log, 10)
    const two = w[0]!.bytes.length + w[1]!.bytes.length
    expect((await log.read(0n, two)).records.equals(Buffer.concat([w[0]!.bytes, w[1]!.bytes]))).toBe(true)
    expect((await log.read(0n, two - 1)).records.equals(w[0]!.bytes)).toBe(true)
    expect((await log.read(0n, 10)).records.length).toBe(0)
    expect((await log.read(0n, 10, { minOneBatch: true })).records.equals(w[0]!.bytes)).toBe(true)
    expect((await log.read(0n, 0, { minOneBatch: true })).records.equals(w[0]!.bytes)).toBe(true)
  })

  it('never returns a batch whose lastOffset reaches maxOffset', async () => {
    const { log } = await openLog({ segmentBytes: 700 })
    const w = await fill(log, 20)
    for (const maxOffset of [1n, w[3]!.last, w[3]!.last + 1n, w[12]!.base + 1n, log.logEndOffset]) {
      const { records } = await log.read(0n, 1 << 20, { maxOffset, minOneBatch: true })
      const expected = Buffer.concat(w.filter((b) => b.last < maxOffset).map((b) => b.bytes))
      expect(records.equals(expected)).toBe(true)
    }
    expect((await log.read(w[5]!.base, 1 << 20, { maxOffset: w[5]!.base })).records.length).toBe(0)
  })

  it('answers OFFSET_OUT_OF_RANGE with the log range outside [logStartOffset, logEndOffset]', async () => {
    const { log } = await openLog()
    await fill(log, 3)
    const end = log.logEndOffset
    const err = await expectSluiceError(log.read(end + 1n, 100), 'OFFSET_OUT_OF_RANGE')
    expect(err.details).toMatchObject({ logStartOffset: '0', logEndOffset: end.toString() })
    await expectSluiceError(log.read(-1n, 100), 'OFFSET_OUT_OF_RANGE')
    expect(await log.read(end, 100)).toEqual({ records: Buffer.alloc(0), firstOffset: end })
  })

  it('rejects a batch above maxMessageBytes before writing anything', async () => {
    const { log, dataDir } = await openLog({ maxMessageBytes: 300 })
    await fill(log, 1)
    const before = await fs.stat(path.join(dataDir, 'orders-0', '00000000000000000000.log'))
    const small = makeBatch({ records: 1, valueBytes: 10, timestamp: 1n })
    const big = makeBatch({ records: 1, valueBytes: 400, timestamp: 1n })
    const err = await expectSluiceError(appendLeader(log, [small, big]), 'MESSAGE_TOO_LARGE')
    expect(err.details).toMatchObject({ maxMessageBytes: 300 })
    const after = await fs.stat(path.join(dataDir, 'orders-0', '00000000000000000000.log'))
    expect(after.size).toBe(before.size)
    expect(log.logEndOffset).toBe(1n)
  })

  it('rolls by record time when a batch is more than segmentMs newer than the first batch', async () => {
    const { log } = await openLog({ segmentMs: 100 })
    await appendLeader(log, [makeBatch({ records: 1, valueBytes: 1, timestamp: 1000n })])
    await appendLeader(log, [makeBatch({ records: 1, valueBytes: 1, timestamp: 1100n })])
    expect(log.segmentBaseOffsets).toEqual([0n])
    await appendLeader(log, [makeBatch({ records: 1, valueBytes: 1, timestamp: 1101n })])
    expect(log.segmentBaseOffsets).toEqual([0n, 2n])
  })

  it('rolls when the offset index is full', async () => {
    const { log } = await openLog({ segmentIndexBytes: 16, indexIntervalBytes: 0 })
    await fill(log, 8)
    // indexIntervalBytes 0: every batch after the first of a segment gets an entry; 2 fit.
    expect(log.segmentBaseOffsets.length).toBeGreaterThanOrEqual(3)
  })
})

describe('PartitionLog follower appends', () => {
  it('appends batches whose offsets are already set, accepts gaps (a compacted leader), rejects overlaps and bad CRCs', async () => {
    const { log } = await openLog()
    const a = makeBatch({ records: 3, valueBytes: 8, timestamp: 5n, baseOffset: 0n, partitionLeaderEpoch: 2 })
    const b = makeBatch({ records: 2, valueBytes: 8, timestamp: 6n, baseOffset: 3n, partitionLeaderEpoch: 2 })
    expect(await log.appendReplicated(Buffer.concat([a, b]))).toEqual({ firstOffset: 0n, lastOffset: 4n })
    const overlap = makeBatch({ records: 1, valueBytes: 8, timestamp: 7n, baseOffset: 4n })
    expect((await expectSluiceError(log.appendReplicated(overlap), 'INVALID_BATCH')).details).toMatchObject({
      reason: 'overlap',
      expectedOffset: '5',
    })
    const corrupt = makeBatch({ records: 1, valueBytes: 8, timestamp: 7n, baseOffset: 5n })
    corrupt[corrupt.length - 1] = corrupt[corrupt.length - 1]! ^ 0xff
    await expectSluiceError(log.appendReplicated(corrupt), 'CORRUPT_MESSAGE')
    // Every batch of a request must come after the previous one: nothing is written otherwise.
    const ok = makeBatch({ records: 1, valueBytes: 8, timestamp: 7n, baseOffset: 5n })
    const backwards = makeBatch({ records: 1, valueBytes: 8, timestamp: 7n, baseOffset: 5n })
    await expectSluiceError(log.appendReplicated(Buffer.concat([ok, backwards])), 'INVALID_BATCH')
    expect(log.logEndOffset).toBe(5n)
    const { records } = await log.read(0n, 1 << 20)
    expect(records.equals(Buffer.concat([a, b]))).toBe(true)
    const gap = makeBatch({ records: 2, valueBytes: 8, timestamp: 7n, baseOffset: 9n })
    expect(await log.appendReplicated(gap)).toEqual({ firstOffset: 9n, lastOffset: 10n })
    expect(log.logEndOffset).toBe(11n)
    expect((await log.read(6n, 1 << 20)).records.equals(gap)).toBe(true)
  })

  it('keeps replicated offset gaps through an unclean restart (the log is marked as having gaps)', async () => {
    const { log, manager, dataDir } = await openLog()
    const a = makeBatch({ records: 2, valueBytes: 8, timestamp: 5n, baseOffset: 0n })
    const gap = makeBatch({ records: 2, valueBytes: 8, timestamp: 6n, baseOffset: 7n })
    await log.appendReplicated(Buffer.concat([a, gap]))
    await manager.abandonForTesting() // a crash: no flush, no checkpoint, no clean-shutdown marker
    const reopened = await LogManager.open({ dataDir, logger: captureLogger().logger })
    onTestFinished(async () => {
      await reopened.close().catch(() => {})
    })
    const again = reopened.getLog('orders', 0)!
    expect(reopened.recoveryStats.cleanShutdown).toBe(false)
    expect(again.logEndOffset).toBe(9n)
    expect((await again.read(0n, 1 << 20)).records.equals(Buffer.concat([a, gap]))).toBe(true)
  })
})

describe('PartitionLog offsetForTimestamp', () => {
  it('finds the first batch whose maxTimestamp is >= ts, across segments', async () => {
    const { log } = await openLog({ segmentBytes: 600, indexIntervalBytes: 50 })
    const w = await fill(log, 40, 1000n) // maxTimestamps 1000, 1010, ... 1390
    expect(log.segmentBaseOffsets.length).toBeGreaterThan(3)
    for (const ts of [0n, 1000n, 1001n, 1155n, 1160n, 1390n]) {
      const first = w.find((b) => b.maxTimestamp >= ts)!
      expect(await log.offsetForTimestamp(ts)).toEqual({ offset: first.base, timestamp: first.maxTimestamp })
    }
    expect(await log.offsetForTimestamp(1391n)).toBeUndefined()
  })
})

describe('PartitionLog truncation and leader epochs', () => {
  it('truncateTo removes whole batches at and after the offset, across segments', async () => {
    const { log } = await openLog({ segmentBytes: 800 })
    const w = await fill(log, 30)
    const target = w[17]!
    await log.truncateTo(target.base + 1n) // inside batch 17: the whole batch goes
    expect(log.logEndOffset).toBe(target.base)
    expect(log.segmentBaseOffsets.every((b) => b < target.base || b === target.base)).toBe(true)
    const { records } = await log.read(0n, 1 << 20)
    expect(records.equals(Buffer.concat(w.slice(0, 17).map((b) => b.bytes)))).toBe(true)
    const r = await appendLeader(log, [makeBatch({ records: 2, valueBytes: 3, timestamp: 5000n })], 1)
    expect(r.firstOffset).toBe(target.base)
    await log.truncateTo(0n)
    expect([log.logStartOffset, log.logEndOffset]).toEqual([0n, 0n])
    expect(log.segmentBaseOffsets).toEqual([0n])
  })

  it('keeps the leader-epoch cache and answers endOffsetForEpoch as KIP-279 says', async () => {
    const { log, manager, dataDir } = await openLog()
    const one = (): Buffer => makeBatch({ records: 5, valueBytes: 4, timestamp: 1n })
    await appendLeader(log, [one(), one()], 1) // 0..9
    await appendLeader(log, [one()], 3) // 10..14
    await log.appendReplicated(
      makeBatch({ records: 5, valueBytes: 4, timestamp: 1n, baseOffset: 15n, partitionLeaderEpoch: 5 }),
    )
    expect(log.leaderEpochs()).toEqual([
      { epoch: 1, startOffset: 0n },
      { epoch: 3, startOffset: 10n },
      { epoch: 5, startOffset: 15n },
    ])
    expect(log.endOffsetForEpoch(3)).toEqual({ epoch: 3, endOffset: 15n })
    expect(log.endOffsetForEpoch(2)).toEqual({ epoch: 1, endOffset: 10n })
    expect(log.endOffsetForEpoch(5)).toEqual({ epoch: 5, endOffset: 20n })
    expect(log.endOffsetForEpoch(0)).toEqual({ epoch: 0, endOffset: 0n })
    expect(log.endOffsetForEpoch(7)).toEqual({ epoch: -1, endOffset: -1n })
    const file = await fs.readFile(path.join(dataDir, 'orders-0', 'leader-epoch-checkpoint'), 'utf8')
    expect(file).toBe('0\n3\n1 0\n3 10\n5 15\n')
    await log.truncateTo(17n) // inside the epoch-5 batch: the whole batch and its epoch go
    expect(log.logEndOffset).toBe(15n)
    expect(log.leaderEpochs()).toEqual([
      { epoch: 1, startOffset: 0n },
      { epoch: 3, startOffset: 10n },
    ])
    expect(log.endOffsetForEpoch(3)).toEqual({ epoch: 3, endOffset: 15n })
    await manager.close()
    const reopened = await LogManager.open({ dataDir, logger: captureLogger().logger })
    onTestFinished(() => reopened.close())
    expect(reopened.getLog('orders', 0)!.leaderEpochs()).toEqual([
      { epoch: 1, startOffset: 0n },
      { epoch: 3, startOffset: 10n },
    ])
  })
})

describe('PartitionLog durability modes', () => {
  it('fsync mode resolves appends after fdatasync; replication mode never syncs per append', async () => {
    const { log: synced } = await openLog({ flush: 'fsync' })
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        appendLeader(synced, [makeBatch({ records: 1, valueBytes: 10, timestamp: BigInt(i) })]),
      ),
    )
    expect(synced.logEndOffset).toBe(20n)
    expect(synced.groupCommitSyncCount).toBeGreaterThanOrEqual(1)
    expect(synced.groupCommitSyncCount).toBeLessThanOrEqual(20)
    const { log: plain } = await openLog({ flush: 'replication' })
    await appendLeader(plain, [makeBatch({ records: 1, valueBytes: 10, timestamp: 1n })])
    expect(plain.groupCommitSyncCount).toBe(0)
    await plain.flush()
    expect(plain.recoveryPoint).toBe(1n)
  })

  it('reads running concurrently with appends only ever see whole, valid batches', async () => {
    const { log } = await openLog({ segmentBytes: 2000 })
    let done = false
    const appends = fill(log, 80).finally(() => {
      done = true
    })
    for (let reads = 0; reads < 10_000 && !done; reads++) {
      const end = log.logEndOffset
      const batches = splitBatches((await log.read(0n, 1 << 20)).records)
      for (const b of batches) expect(checkBatchAt(b, 0)).toBeUndefined()
      const last = batches[batches.length - 1]
      // Everything committed before the read started is visible.
      if (last !== undefined)
        expect(
          readBatchHeader(last)!.baseOffset + BigInt(readBatchHeader(last)!.lastOffsetDelta) + 1n,
        ).toBeGreaterThanOrEqual(end)
    }
    await appends
  })
})
