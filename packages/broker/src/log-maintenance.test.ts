import fs from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { ManualClock } from '@sluice/protocol'
import { LogManager } from './log/manager/log-manager.js'
import { appendLeader, captureLogger, testConfig } from './log/__fixtures__/log-test-env.js'
import { keyedBatch, makeBatch, makeTempDir } from './log/__fixtures__/test-batches.js'
import { LogMaintenance } from './log-maintenance.js'

const PARTITIONS = Number(process.env.SLUICE_SCALE_PARTITIONS ?? 10_000)

async function dataDir(): Promise<string> {
  const dir = await makeTempDir('sluice-maint-')
  onTestFinished(() => fs.rm(dir, { recursive: true, force: true }))
  return dir
}

describe('LogMaintenance', () => {
  it(`loads ${PARTITIONS} idle partitions without opening files, and its ticks leave idle partitions alone`, async () => {
    const dir = await dataDir()
    for (let i = 0; i < PARTITIONS; i += 250) {
      await Promise.all(
        Array.from({ length: 250 }, async (_, j) => {
          // An idle partition that never received data is just its directory.
          await fs.mkdir(path.join(dir, `idle-${i + j}`))
        }),
      )
    }
    await fs.writeFile(path.join(dir, '.sluice_cleanshutdown'), '')
    const manager = await LogManager.open({ dataDir: dir, logger: captureLogger().logger })
    onTestFinished(() => manager.close())
    expect(manager.listLogs()).toHaveLength(PARTITIONS)
    expect(manager.recoveryStats.segmentsScanned).toBe(0)
    expect(manager.openFileCountMax).toBe(0)
    expect(await fs.readdir(path.join(dir, 'idle-1'))).toEqual([])
    const maintenance = new LogMaintenance({
      logManager: manager,
      logger: captureLogger().logger,
      sliceSize: 1000,
      highWatermark: (t, p) => manager.getLog(t, p)?.logEndOffset,
    })
    const first = await maintenance.runOnce()
    expect(first.logsVisited).toBe(PARTITIONS)
    const second = await maintenance.runOnce()
    expect([second.logsVisited, second.logsChecked, second.segmentsDeleted]).toEqual([PARTITIONS, 0, 0])
    // Checkpoints were written once; nothing else was opened for the idle partitions.
    expect(manager.openFileCountMax).toBeLessThanOrEqual(1)
    // One of them gets data (directory idle-7 is partition 7 of topic "idle"): only it is checked again.
    await appendLeader(manager.getLog('idle', 7)!, [makeBatch({ records: 1, valueBytes: 10, timestamp: 1n })])
    expect((await maintenance.runOnce()).logsChecked).toBe(1)
  }, 120_000)

  it('applies retention and compaction on its timer, and skips partitions whose high watermark is unknown', async () => {
    const dir = await dataDir()
    const manager = await LogManager.open({ dataDir: dir, logger: captureLogger().logger, fileDeleteDelayMs: 0 })
    onTestFinished(() => manager.close())
    const old = await manager.getOrCreateLog('old', 0, testConfig({ retentionMs: 1000, segmentBytes: 300 }))
    const unknown = await manager.getOrCreateLog('unknown', 0, testConfig({ retentionMs: 1000, segmentBytes: 300 }))
    const compacted = await manager.getOrCreateLog(
      'compacted',
      0,
      testConfig({ cleanupPolicy: 'compact', segmentBytes: 300 }),
    )
    for (let i = 0; i < 10; i++) {
      for (const log of [old, unknown])
        await appendLeader(log, [makeBatch({ records: 2, valueBytes: 40, timestamp: BigInt(Date.now() - 60_000) })])
      await appendLeader(compacted, [keyedBatch([['k', `v${i}`]], BigInt(Date.now()))])
    }
    const maintenance = new LogMaintenance({
      logManager: manager,
      logger: captureLogger().logger,
      intervalMs: 20,
      highWatermark: (t, p) => (t === 'unknown' ? undefined : manager.getLog(t, p)?.logEndOffset),
    })
    maintenance.start()
    onTestFinished(() => maintenance.stop())
    const deadline = Date.now() + 10_000
    while ((old.logStartOffset !== old.logEndOffset || compacted.firstDirtyOffset === 0n) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(old.logStartOffset).toBe(old.logEndOffset)
    expect(compacted.firstDirtyOffset).toBeGreaterThan(0n)
    expect(unknown.logStartOffset).toBe(0n)
    await maintenance.stop()
  })

  it('on its clock, deletes segments once retention.ms has passed since their largest timestamp, not one ms before', async () => {
    const dir = await dataDir()
    const manager = await LogManager.open({ dataDir: dir, logger: captureLogger().logger, fileDeleteDelayMs: 0 })
    onTestFinished(() => manager.close())
    const written = 1_700_000_000_000
    const clock = new ManualClock(written)
    const log = await manager.getOrCreateLog('timed', 0, testConfig({ retentionMs: 1000, segmentBytes: 300 }))
    for (let i = 0; i < 6; i++)
      await appendLeader(log, [makeBatch({ records: 2, valueBytes: 40, timestamp: BigInt(written) })])
    expect(log.segmentList.length).toBeGreaterThan(1)
    const maintenance = new LogMaintenance({
      logManager: manager,
      logger: captureLogger().logger,
      clock,
      intervalMs: 60_000,
      highWatermark: (t, p) => manager.getLog(t, p)?.logEndOffset,
    })
    onTestFinished(() => maintenance.stop())
    clock.advance(1000)
    expect((await maintenance.runOnce()).segmentsDeleted).toBe(0)
    expect(log.logStartOffset).toBe(0n)
    clock.advance(1)
    expect((await maintenance.runOnce()).segmentsDeleted).toBeGreaterThan(0)
    expect(log.logStartOffset).toBe(log.logEndOffset)
  })

  it('fsync-mode appends to many partitions of one data dir share group-commit rounds', async () => {
    const dir = await dataDir()
    const manager = await LogManager.open({ dataDir: dir, logger: captureLogger().logger })
    onTestFinished(() => manager.close())
    const logs = await Promise.all(
      Array.from({ length: 8 }, (_, p) => manager.getOrCreateLog('sync', p, testConfig({ flush: 'fsync' }))),
    )
    const appends = logs.flatMap((log) =>
      Array.from({ length: 5 }, (_, i) =>
        appendLeader(log, [makeBatch({ records: 1, valueBytes: 10, timestamp: BigInt(i) })]),
      ),
    )
    await Promise.all(appends)
    expect(logs.every((l) => l.logEndOffset === 5n)).toBe(true)
    expect(manager.syncRounds).toBeGreaterThanOrEqual(1)
    // 40 appends to 8 logs: far fewer rounds than appends.
    expect(manager.syncRounds).toBeLessThan(appends.length / 2)
  })
})
