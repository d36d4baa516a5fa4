import fs from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { isSluiceError, type SluiceError } from '@sluice/protocol'
import { readCheckpointFile } from '../io/checkpoint-file.js'
import type { LogConfig } from '../log-config.js'
import { LOG_START_OFFSET_CHECKPOINT_FILE } from '../segment/log-files.js'
import { LogManager } from '../manager/log-manager.js'
import { appendLeader, captureLogger, testConfig } from '../__fixtures__/log-test-env.js'
import type { PartitionLog } from '../partition/partition-log.js'
import { makeBatch, makeTempDir } from '../__fixtures__/test-batches.js'

async function setup(config: Partial<LogConfig>, fileDeleteDelayMs = 0) {
  const dataDir = await makeTempDir('sluice-retention-')
  const { logger, lines } = captureLogger('info')
  let manager = await LogManager.open({ dataDir, logger, fileDeleteDelayMs })
  onTestFinished(async () => {
    await manager.close().catch(() => {})
    await fs.rm(dataDir, { recursive: true, force: true })
  })
  const cfg = testConfig({ segmentBytes: 500, indexIntervalBytes: 100, ...config })
  const env = {
    dataDir,
    lines,
    manager,
    log: await manager.getOrCreateLog('r', 0, cfg),
    partitionDir: path.join(dataDir, 'r-0'),
    async reopen() {
      await manager.close()
      manager = await LogManager.open({ dataDir, logger, fileDeleteDelayMs })
      env.manager = manager
      env.log = await manager.getOrCreateLog('r', 0, cfg)
      return env.log
    },
  }
  return env
}

/** `n` batches of 2 records, timestamps ts0, ts0+step, ...; returns the log end offset. */
async function fill(log: PartitionLog, n: number, ts0: bigint, step = 10n): Promise<void> {
  for (let i = 0; i < n; i++)
    await appendLeader(log, [makeBatch({ records: 2, valueBytes: 40, timestamp: ts0 + BigInt(i) * step })])
}

async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(isSluiceError(err) && (err as SluiceError).code).toBe(code)
}

describe('retention', () => {
  it('deletes closed segments whose newest record is older than retention.ms, oldest first, and moves the log start', async () => {
    const env = await setup({ retentionMs: 1000 })
    await fill(env.log, 20, 10_000n, 100n) // timestamps 10000..11900
    const bases = env.log.segmentBaseOffsets
    expect(bases.length).toBeGreaterThan(3)
    const res = await env.log.deleteRetainedSegments(11_500, env.log.logEndOffset)
    // Kept: segments whose newest record is within 1000 ms of now=11500 (>= 10500).
    expect(res.segmentsDeleted).toBeGreaterThan(0)
    expect(env.log.segmentBaseOffsets).toEqual(bases.slice(res.segmentsDeleted))
    expect(env.log.logStartOffset).toBe(bases[res.segmentsDeleted])
    const first = await env.log.read(env.log.logStartOffset, 1 << 20)
    expect(first.records.length).toBeGreaterThan(0)
    await expectCode(env.log.read(0n, 100), 'OFFSET_OUT_OF_RANGE')
    const files = await fs.readdir(env.partitionDir)
    expect(files.filter((f) => f.endsWith('.log'))).toHaveLength(env.log.segmentBaseOffsets.length)
    expect(env.lines.some((l) => l.msg === 'retention deleted segments')).toBe(true)
  })

  it('deletes by retention.bytes per partition, keeping at least retention.bytes', async () => {
    const env = await setup({ retentionMs: -1, retentionBytes: 1200 })
    await fill(env.log, 30, 1000n)
    const before = env.log.sizeBytes
    const res = await env.log.deleteRetainedSegments(Date.now(), env.log.logEndOffset)
    expect(res.segmentsDeleted).toBeGreaterThan(0)
    expect(env.log.sizeBytes).toBe(before - res.bytesDeleted)
    expect(env.log.sizeBytes).toBeGreaterThanOrEqual(1200)
    expect(env.log.sizeBytes - env.log.segmentList[0]!.sizeBytes).toBeLessThan(1200)
  })

  it('never deletes a segment that ends above the high watermark', async () => {
    const env = await setup({ retentionMs: 0 })
    await fill(env.log, 20, 1000n)
    const bases = env.log.segmentBaseOffsets
    const hw = bases[2]! + 1n // inside the third segment
    const res = await env.log.deleteRetainedSegments(Date.now(), hw)
    expect(res.segmentsDeleted).toBe(2)
    expect(env.log.logStartOffset).toBe(bases[2])
  })

  it('rolls first when the active segment itself is past retention, leaving an empty active segment', async () => {
    const env = await setup({ retentionMs: 100, segmentBytes: 1 << 20 })
    await fill(env.log, 5, 1000n)
    expect(env.log.segmentBaseOffsets).toEqual([0n])
    const end = env.log.logEndOffset
    expect((await env.log.deleteRetainedSegments(1000, end)).segmentsDeleted).toBe(0) // not old enough yet
    const res = await env.log.deleteRetainedSegments(10_000, end)
    expect(res.segmentsDeleted).toBe(1)
    expect(env.log.segmentBaseOffsets).toEqual([end])
    expect([env.log.logStartOffset, env.log.logEndOffset]).toEqual([end, end])
    // Nothing left to delete; appends continue at the same offsets.
    expect((await env.log.deleteRetainedSegments(20_000, end)).segmentsDeleted).toBe(0)
    await fill(env.log, 1, 30_000n)
    expect(env.log.logEndOffset).toBe(end + 2n)
    const log = await env.reopen()
    expect([log.logStartOffset, log.logEndOffset]).toEqual([end, end + 2n])
  })

  it('does nothing by time or size under cleanup.policy=compact', async () => {
    const env = await setup({ retentionMs: 0, retentionBytes: 0, cleanupPolicy: 'compact' })
    await fill(env.log, 20, 1000n)
    expect((await env.log.deleteRetainedSegments(Date.now(), env.log.logEndOffset)).segmentsDeleted).toBe(0)
  })

  it('renames deleted segments to .deleted and removes them only after the delay, so a read in progress finishes', async () => {
    const env = await setup({ retentionMs: 0 }, 60_000)
    await fill(env.log, 20, 1000n)
    const oldFirst = env.log.segmentList[0]!
    await env.log.deleteRetainedSegments(Date.now(), env.log.segmentBaseOffsets[2]!)
    const files = await fs.readdir(env.partitionDir)
    expect(files.filter((f) => f.endsWith('.deleted')).length).toBe(6)
    // A reader holding the old segment object still reads it (the file moved, the object followed).
    expect((await oldFirst.readLog(0, 61)).length).toBe(61)
    expect(env.manager.deleter.pendingFiles).toBe(6)
    await env.manager.close()
    expect((await fs.readdir(env.partitionDir)).filter((f) => f.endsWith('.deleted'))).toEqual([])
  })
})

describe('DeleteRecords', () => {
  it('moves the log start inside a segment, deletes whole segments below it, persists it and survives restarts', async () => {
    const env = await setup({ retentionMs: -1 })
    await fill(env.log, 20, 1000n)
    const bases = env.log.segmentBaseOffsets
    const target = bases[2]! + 1n
    expect(await env.log.deleteRecordsBefore(target, env.log.logEndOffset)).toBe(target)
    expect(env.log.logStartOffset).toBe(target)
    expect(env.log.segmentBaseOffsets).toEqual(bases.slice(2))
    await expectCode(env.log.read(target - 1n, 100), 'OFFSET_OUT_OF_RANGE')
    expect((await env.log.read(target, 1 << 20)).records.length).toBeGreaterThan(0)
    const cp = await readCheckpointFile(path.join(env.dataDir, LOG_START_OFFSET_CHECKPOINT_FILE), 3)
    expect(cp).toEqual({ kind: 'ok', entries: [['r', '0', target.toString()]] })
    // Never backwards; never past the high watermark.
    expect(await env.log.deleteRecordsBefore(1n, env.log.logEndOffset)).toBe(target)
    await expectCode(
      env.log.deleteRecordsBefore(env.log.logEndOffset, env.log.logEndOffset - 1n),
      'OFFSET_OUT_OF_RANGE',
    )
    const reopened = await env.reopen()
    expect(reopened.logStartOffset).toBe(target)
    // An unclean stop keeps it too (the checkpoint was written before the call returned).
    await env.manager.abandonForTesting()
    const crashed = await LogManager.open({ dataDir: env.dataDir, logger: captureLogger().logger })
    onTestFinished(() => crashed.close())
    expect(crashed.getLog('r', 0)!.logStartOffset).toBe(target)
  })

  it('up to the log end: everything becomes unreadable and appends continue', async () => {
    const env = await setup({})
    await fill(env.log, 10, 1000n)
    const end = env.log.logEndOffset
    await env.log.deleteRecordsBefore(end, end)
    expect([env.log.logStartOffset, env.log.logEndOffset]).toEqual([end, end])
    expect((await env.log.read(end, 100)).records.length).toBe(0)
    await fill(env.log, 1, 2000n)
    expect((await env.log.read(end, 1 << 20)).firstOffset).toBe(end)
  })

  it('truncating below the log start restarts the log there', async () => {
    const env = await setup({})
    await fill(env.log, 10, 1000n)
    await env.log.deleteRecordsBefore(7n, env.log.logEndOffset)
    await env.log.truncateTo(5n)
    expect([env.log.logStartOffset, env.log.logEndOffset]).toEqual([5n, 5n])
  })
})
