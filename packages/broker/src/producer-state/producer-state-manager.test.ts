import fs from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { encodeRecordBatch, isSluiceError, ManualClock, validateBatches } from '@sluice/protocol'
import { LogManager } from '../log/manager/log-manager.js'
import { captureLogger, testConfig } from '../log/__fixtures__/log-test-env.js'
import { makeTempDir } from '../log/__fixtures__/test-batches.js'
import type { PartitionLog } from '../log/partition/partition-log.js'
import { ProducerStateManager } from './producer-state-manager.js'
import { SNAPSHOT_FILE } from './producer-state-snapshot.js'
import { producerStateSweeper } from './producer-state-sweeper.js'

const NOW = 1_700_000_000_000

function idem(pid: bigint, epoch: number, seq: number, values: string[], ts = BigInt(NOW)): Buffer {
  return encodeRecordBatch(
    values.map((v) => ({ value: Buffer.from(v), timestamp: ts })),
    { producerId: pid, producerEpoch: epoch, baseSequence: seq, baseTimestamp: ts },
  )
}

async function openDir(dataDir: string): Promise<{ manager: LogManager; log: PartitionLog }> {
  const manager = await LogManager.open({ dataDir, logger: captureLogger().logger })
  const log = await manager.getOrCreateLog('p', 0, testConfig())
  return { manager, log }
}

interface Env {
  dataDir: string
  manager: LogManager
  log: PartitionLog
}

/** A fresh data dir with one log; `manager` may be replaced by a reopened one, the last is closed at the end. */
async function setup(): Promise<Env> {
  const dataDir = await makeTempDir('sluice-pstate-')
  const env: Env = { dataDir, ...(await openDir(dataDir)) }
  onTestFinished(async () => {
    await env.manager.close().catch(() => {})
    await fs.rm(dataDir, { recursive: true, force: true })
  })
  return env
}

/** What a partition does: check, append as leader, answer. */
async function leaderAppend(ps: ProducerStateManager, log: PartitionLog, batch: Buffer): Promise<string> {
  const buf = Buffer.from(batch) // stamping writes into the buffer
  const spans = validateBatches(buf)
  try {
    await ps.loadIfStale()
    const duplicate = ps.checkLeaderAppend(spans)
    if (duplicate !== undefined) return `dup@${duplicate.firstOffset}`
    const plan = log.planLeaderAppend(buf, spans, 0)
    await log.appendPlanned(buf, plan)
    ps.recordLeaderAppend(spans, plan.firstOffset, plan.lastOffset)
    return `ok@${plan.firstOffset}`
  } catch (err) {
    if (isSluiceError(err)) return err.code
    throw err
  }
}

describe('ProducerStateManager', () => {
  it('dedups retries and rejects gaps and fenced epochs against a real log, appending nothing for them', async () => {
    const { log } = await setup()
    const ps = new ProducerStateManager(log, { clock: new ManualClock(NOW) })
    onTestFinished(() => ps.close())
    expect(await leaderAppend(ps, log, idem(5n, 0, 0, ['a', 'b']))).toBe('ok@0')
    expect(await leaderAppend(ps, log, idem(5n, 0, 2, ['c']))).toBe('ok@2')
    expect(await leaderAppend(ps, log, idem(5n, 0, 0, ['a', 'b']))).toBe('dup@0')
    expect(await leaderAppend(ps, log, idem(5n, 0, 4, ['x']))).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER')
    expect(await leaderAppend(ps, log, idem(5n, 1, 0, ['d']))).toBe('ok@3')
    expect(await leaderAppend(ps, log, idem(5n, 0, 3, ['stale']))).toBe('INVALID_PRODUCER_EPOCH')
    expect(log.logEndOffset).toBe(4n)
  })

  it('survives a clean restart through the snapshot and a crash through a header scan', async () => {
    const env = await setup()
    const ps = new ProducerStateManager(env.log, { clock: new ManualClock(NOW) })
    for (let i = 0; i < 7; i++)
      expect(await leaderAppend(ps, env.log, idem(8n, 0, i * 2, [`v${i}a`, `v${i}b`]))).toBe(`ok@${i * 2}`)
    await ps.close()
    expect(await fs.readFile(path.join(env.log.dir, SNAPSHOT_FILE), 'utf8')).toContain('"offset":"14"')
    await env.manager.close()

    // Clean restart: the snapshot is used.
    let reopened = await openDir(env.dataDir)
    env.manager = reopened.manager
    let ps2 = new ProducerStateManager(reopened.log, { clock: new ManualClock(NOW) })
    expect(await leaderAppend(ps2, reopened.log, idem(8n, 0, 12, ['v6a', 'v6b']))).toBe('dup@12')
    expect(await leaderAppend(ps2, reopened.log, idem(8n, 0, 2, ['v1a', 'v1b']))).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER') // older than the last 5
    expect(await leaderAppend(ps2, reopened.log, idem(8n, 0, 15, ['gap']))).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER')
    expect(await leaderAppend(ps2, reopened.log, idem(8n, 0, 14, ['v7']))).toBe('ok@14')
    await ps2.close()
    await reopened.manager.close()

    // "Crash": no usable snapshot, the state is rebuilt from the batch headers in the log.
    await fs.rm(path.join(reopened.log.dir, SNAPSHOT_FILE))
    reopened = await openDir(env.dataDir)
    env.manager = reopened.manager
    ps2 = new ProducerStateManager(reopened.log, { clock: new ManualClock(NOW) })
    onTestFinished(() => ps2.close())
    expect(await leaderAppend(ps2, reopened.log, idem(8n, 0, 14, ['v7']))).toBe('dup@14')
    expect(await leaderAppend(ps2, reopened.log, idem(8n, 0, 10, ['v5a', 'v5b']))).toBe('dup@10')
    expect(await leaderAppend(ps2, reopened.log, idem(8n, 0, 16, ['gap']))).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER')
    expect(reopened.log.logEndOffset).toBe(15n)
  })

  it('a rebuild by scan skips batches older than the expiration time', async () => {
    const env = await setup()
    const ps = new ProducerStateManager(env.log, { clock: new ManualClock(NOW), expirationMs: 60_000 })
    expect(await leaderAppend(ps, env.log, idem(1n, 0, 0, ['old'], BigInt(NOW - 120_000)))).toBe('ok@0')
    expect(await leaderAppend(ps, env.log, idem(2n, 0, 0, ['new']))).toBe('ok@1')
    const fresh = new ProducerStateManager(env.log, { clock: new ManualClock(NOW), expirationMs: 60_000 })
    onTestFinished(() => fresh.close())
    // Loading happens on the first append; producer 1 is gone (any sequence accepted), 2 is known.
    expect(await leaderAppend(fresh, env.log, idem(1n, 0, 9, ['any']))).toBe('ok@2')
    expect(await leaderAppend(fresh, env.log, idem(2n, 0, 0, ['new']))).toBe('dup@1')
    expect(fresh.state.size).toBe(2)
    await ps.close()
  })

  it('rebuilds after the log was truncated under it, so a retry of a truncated batch is appended again', async () => {
    const { log } = await setup()
    const ps = new ProducerStateManager(log, { clock: new ManualClock(NOW) })
    onTestFinished(() => ps.close())
    expect(await leaderAppend(ps, log, idem(4n, 0, 0, ['a']))).toBe('ok@0')
    await ps.snapshot() // a snapshot at offset 1
    expect(await leaderAppend(ps, log, idem(4n, 0, 1, ['b']))).toBe('ok@1')
    expect(await leaderAppend(ps, log, idem(4n, 0, 2, ['c']))).toBe('ok@2')
    await ps.snapshot() // at offset 3, above where we truncate
    await log.truncateTo(1n) // what a follower does on a leader change
    expect(await leaderAppend(ps, log, idem(4n, 0, 1, ['b']))).toBe('ok@1')
    expect(await leaderAppend(ps, log, idem(4n, 0, 3, ['d']))).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER')
    expect(await leaderAppend(ps, log, idem(4n, 0, 2, ['c']))).toBe('ok@2')
  })

  it('followers record replicated batches so a new leader dedups retries', async () => {
    const leaderEnv = await setup()
    const followerEnv = await setup()
    const leaderPs = new ProducerStateManager(leaderEnv.log, { clock: new ManualClock(NOW) })
    const followerPs = new ProducerStateManager(followerEnv.log, { clock: new ManualClock(NOW) })
    onTestFinished(async () => {
      await leaderPs.close()
      await followerPs.close()
    })
    expect(await leaderAppend(leaderPs, leaderEnv.log, idem(6n, 0, 0, ['a', 'b']))).toBe('ok@0')
    expect(await leaderAppend(leaderPs, leaderEnv.log, idem(6n, 0, 2, ['c']))).toBe('ok@2')
    const { records } = await leaderEnv.log.read(0n, 1 << 20)
    await followerPs.loadIfStale()
    followerPs.recordReplicated(records, (await followerEnv.log.appendReplicated(records)).lastOffset)
    expect(await leaderAppend(followerPs, followerEnv.log, idem(6n, 0, 2, ['c']))).toBe('dup@2')
    expect(await leaderAppend(followerPs, followerEnv.log, idem(6n, 0, 3, ['d']))).toBe('ok@3')
  })

  it('the sweep drops idle producers and snapshots moved state; one process-wide registration per loaded replica', async () => {
    const { log } = await setup()
    const clock = new ManualClock(NOW)
    const ps = new ProducerStateManager(log, { clock, expirationMs: 1000 })
    const before = producerStateSweeper.size
    expect(await leaderAppend(ps, log, idem(3n, 0, 0, ['a']))).toBe('ok@0')
    expect(producerStateSweeper.size).toBe(before + 1)
    clock.advance(5000)
    await ps.sweep()
    expect(ps.state.size).toBe(0)
    expect(await fs.readFile(path.join(log.dir, SNAPSHOT_FILE), 'utf8')).toContain('"producers":[]')
    await ps.close()
    expect(producerStateSweeper.size).toBe(before)
  })

  it('a producer id expires exactly when producer.id.expiration.ms has passed after its last batch timestamp, not 1 ms before', async () => {
    const { log } = await setup()
    const clock = new ManualClock(NOW)
    const ps = new ProducerStateManager(log, { clock, expirationMs: 1000 })
    expect(await leaderAppend(ps, log, idem(3n, 0, 0, ['a']))).toBe('ok@0')
    clock.advance(999)
    await ps.sweep()
    expect(ps.state.size).toBe(1)
    clock.advance(1)
    await ps.sweep()
    expect(ps.state.size).toBe(0)
    await ps.close()
  })
})
