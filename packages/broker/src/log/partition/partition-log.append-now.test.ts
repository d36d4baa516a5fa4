// The appends written at once, without the write queue's promises (appendPlannedSync,
// appendReplicatedSync): what they write, and that they write nothing when an append needs more
// than one small write to the open active segment.
import fs from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { isSluiceError, validateBatches } from '@sluice/protocol'
import { LogManager } from '../manager/log-manager.js'
import type { LogConfig } from '../log-config.js'
import { appendLeader, captureLogger, testConfig } from '../__fixtures__/log-test-env.js'
import { makeBatch, makeTempDir } from '../__fixtures__/test-batches.js'
import type { PartitionLog } from './partition-log.js'

async function openLog(config: Partial<LogConfig> = {}): Promise<{ log: PartitionLog; file: string }> {
  const dataDir = await makeTempDir()
  const manager = await LogManager.open({ dataDir, logger: captureLogger().logger })
  onTestFinished(async () => {
    await manager.close().catch(() => {})
    await fs.rm(dataDir, { recursive: true, force: true })
  })
  const log = await manager.getOrCreateLog('orders', 0, testConfig(config))
  return { log, file: path.join(dataDir, 'orders-0', '00000000000000000000.log') }
}

/** A leader append planned and written at once, as Partition does when the log's writer is idle. */
function appendNow(log: PartitionLog, buf: Buffer, epoch: number): boolean {
  expect(log.writerIdle).toBe(true)
  return log.appendPlannedSync(buf, log.planLeaderAppend(buf, validateBatches(buf), epoch))
}

async function sizeOf(file: string): Promise<number> {
  return (await fs.stat(file).catch(() => ({ size: -1 }))).size
}

describe('PartitionLog appends written at once', () => {
  it('writes a small leader append to the open active segment; writes nothing when it would roll or start an epoch', async () => {
    const { log, file } = await openLog({ segmentBytes: 700 })
    const first = makeBatch({ records: 2, valueBytes: 20, timestamp: 1000n })
    // A new log's segment has no file open yet: the first append takes the promise path.
    expect(appendNow(log, Buffer.from(first), 1)).toBe(false)
    expect(log.logEndOffset).toBe(0n)
    await appendLeader(log, [first], 1)
    const afterFirst = await sizeOf(file)

    const second = makeBatch({ records: 3, valueBytes: 20, timestamp: 1001n, fill: 0x62 })
    expect(appendNow(log, second, 1)).toBe(true)
    expect(log.logEndOffset).toBe(5n)
    expect(await sizeOf(file)).toBe(afterFirst + second.length)
    const read = await log.read(2n, 1 << 20)
    expect(read.records.equals(second)).toBe(true) // stamped in place: base offset 2, epoch 1
    expect(read.records.readBigInt64BE(0)).toBe(2n)

    // A newer leader epoch is noted in the epoch cache's file first.
    const newEpoch = makeBatch({ records: 1, valueBytes: 20, timestamp: 1002n })
    expect(appendNow(log, newEpoch, 2)).toBe(false)
    // A batch past segmentBytes rolls the segment first.
    const large = makeBatch({ records: 1, valueBytes: 500, timestamp: 1002n })
    expect(appendNow(log, large, 1)).toBe(false)
    expect([log.logEndOffset, await sizeOf(file), log.segmentBaseOffsets]).toEqual([
      5n,
      afterFirst + second.length,
      [0n],
    ])
    await appendLeader(log, [large], 1)
    expect(log.segmentBaseOffsets).toEqual([0n, 5n])
    expect(log.leaderEpochs()).toEqual([{ epoch: 1, startOffset: 0n }])
  })

  it('leaves an fsync log to the group commit', async () => {
    const { log } = await openLog({ flush: 'fsync' })
    await appendLeader(log, [makeBatch({ records: 1, valueBytes: 10, timestamp: 1n })], 0)
    expect(appendNow(log, makeBatch({ records: 1, valueBytes: 10, timestamp: 2n }), 0)).toBe(false)
    expect(log.logEndOffset).toBe(1n)
  })

  it('writes a contiguous follower append; nothing for a gap or a new epoch; an overlap throws', async () => {
    const { log, file } = await openLog()
    const a = makeBatch({ records: 2, valueBytes: 8, timestamp: 5n, baseOffset: 0n, partitionLeaderEpoch: 3 })
    expect(log.appendReplicatedSync(a)).toBeUndefined() // no file open yet
    await log.appendReplicated(a)
    const b = makeBatch({ records: 2, valueBytes: 8, timestamp: 6n, baseOffset: 2n, partitionLeaderEpoch: 3 })
    expect(log.appendReplicatedSync(b)).toEqual({ firstOffset: 2n, lastOffset: 3n })
    expect((await log.read(2n, 1 << 20)).records.equals(b)).toBe(true)
    const size = await sizeOf(file)

    const gap = makeBatch({ records: 1, valueBytes: 8, timestamp: 7n, baseOffset: 9n, partitionLeaderEpoch: 3 })
    expect(log.appendReplicatedSync(gap)).toBeUndefined() // the gap marker file comes first
    const newer = makeBatch({ records: 1, valueBytes: 8, timestamp: 7n, baseOffset: 4n, partitionLeaderEpoch: 4 })
    expect(log.appendReplicatedSync(newer)).toBeUndefined()
    const overlap = makeBatch({ records: 1, valueBytes: 8, timestamp: 7n, baseOffset: 3n, partitionLeaderEpoch: 3 })
    let thrown: unknown
    try {
      log.appendReplicatedSync(overlap)
    } catch (err) {
      thrown = err
    }
    expect(isSluiceError(thrown, 'INVALID_BATCH')).toBe(true)
    expect([log.logEndOffset, await sizeOf(file)]).toEqual([4n, size])
  })
})
