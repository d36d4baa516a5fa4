import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { describe, expect, it, onTestFinished } from 'vitest'
import { encodeRecordBatch, isSluiceError, validateBatches } from '@sluice/protocol'
import { DEFAULT_LOG_CONFIG, LogManager } from './log/index.js'
import type { PartitionStateView } from './metadata-cache.js'
import { Partition } from './partition.js'

async function setup() {
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-partition-'))
  const manager = await LogManager.open({ dataDir: dir, logger: pino({ level: 'silent' }) })
  onTestFinished(async () => {
    await manager.close()
    await rm(dir, { recursive: true, force: true })
  })
  const log = await manager.getOrCreateLog('t', 0, { ...DEFAULT_LOG_CONFIG })
  const events: Array<[string, number?]> = []
  const partition = new Partition('t', 0, 't/0', log, 1, {
    onHighWatermarkAdvanced: (_k, bytes) => events.push(['hw', bytes]),
    onStateChange: () => events.push(['state']),
  })
  return { partition, events }
}

function state(leader: number, leaderEpoch: number): PartitionStateView {
  return {
    topic: 't',
    partition: 0,
    leader,
    leaderEpoch,
    replicas: [1, 2],
    isr: [1],
    partitionEpoch: leaderEpoch,
    topicId: 'id',
  }
}

function records(n: number): { buf: Buffer; spans: ReturnType<typeof validateBatches> } {
  const buf = encodeRecordBatch(Array.from({ length: n }, (_, i) => ({ value: Buffer.from(`v${i}`) })))
  return { buf, spans: validateBatches(buf) }
}

describe('Partition', () => {
  it('advances the high watermark after each leader append and reports the bytes', async () => {
    const { partition, events } = await setup()
    await partition.applyState(state(1, 3))
    expect(partition.isLeader).toBe(true)
    const a = records(2)
    const r = await partition.appendAsLeader(a.buf, a.spans)
    expect([r.firstOffset, r.lastOffset, partition.highWatermark]).toEqual([0n, 1n, 2n])
    expect(a.buf.readInt32BE(12)).toBe(3) // stamped with the leader epoch
    expect(events).toContainEqual(['hw', a.buf.length])
    await partition.waitForHighWatermark(2n, 1000)
  })

  it('answers an append at once when the log writer is idle, and queues it behind a queued write', async () => {
    const { partition } = await setup()
    await partition.applyState(state(1, 3))
    const a = records(1)
    const first = partition.appendAsLeader(a.buf, a.spans)
    expect(first).toBeInstanceOf(Promise) // the producer state is loaded first
    await first
    const b = records(2)
    const second = partition.appendAsLeader(b.buf, b.spans)
    expect(second).not.toBeInstanceOf(Promise)
    expect(second).toMatchObject({ firstOffset: 1n, lastOffset: 2n })
    expect(partition.highWatermark).toBe(3n)
    const flushed = partition.log.flush()
    const c = records(1)
    const third = partition.appendAsLeader(c.buf, c.spans)
    expect(third).toBeInstanceOf(Promise)
    expect(partition.logEndOffset).toBe(3n)
    await flushed
    expect(await third).toMatchObject({ firstOffset: 3n, lastOffset: 3n })
  })

  it('serialises concurrent appends and refuses them once it is a follower', async () => {
    const { partition } = await setup()
    await partition.applyState(state(1, 0))
    const results = await Promise.all(
      [records(1), records(3), records(1)].map((x) => partition.appendAsLeader(x.buf, x.spans)),
    )
    expect(results.map((r) => r.firstOffset)).toEqual([0n, 1n, 4n])
    await partition.applyState(state(2, 1))
    expect(partition.isLeader).toBe(false)
    const x = records(1)
    await expect(partition.appendAsLeader(x.buf, x.spans)).rejects.toSatisfy((e) =>
      isSluiceError(e, 'NOT_LEADER_OR_FOLLOWER'),
    )
    await expect(partition.waitForHighWatermark(100n, 1000)).rejects.toSatisfy((e) =>
      isSluiceError(e, 'NOT_LEADER_OR_FOLLOWER'),
    )
  })

  it('fails high-watermark waiters on leadership loss and on timeout', async () => {
    const { partition, events } = await setup()
    await partition.applyState(state(1, 0))
    const waiting = expect(partition.waitForHighWatermark(10n, 60_000)).rejects.toSatisfy((e) =>
      isSluiceError(e, 'NOT_LEADER_OR_FOLLOWER'),
    )
    await partition.applyState(state(2, 1))
    await waiting
    expect(events.filter((e) => e[0] === 'state').length).toBe(2)
    await partition.applyState(state(1, 2))
    await expect(partition.waitForHighWatermark(10n, 20)).rejects.toSatisfy((e) =>
      isSluiceError(e, 'REQUEST_TIMED_OUT'),
    )
  })

  it('close settles queued appends (refused, nothing written) and refuses more', async () => {
    const { partition } = await setup()
    await partition.applyState(state(1, 0))
    const x = records(1)
    let outcome = 'pending'
    // The first append of a replica loads the producer state first, so it is queued.
    void Promise.resolve(partition.appendAsLeader(x.buf, x.spans)).then(
      () => {
        outcome = 'appended'
      },
      (e) => {
        outcome = isSluiceError(e, 'NOT_LEADER_OR_FOLLOWER') ? 'refused' : String(e)
      },
    )
    await partition.close()
    await Promise.resolve()
    expect(outcome).toBe('refused')
    expect(partition.logEndOffset).toBe(0n)
    const y = records(1)
    await expect(partition.appendAsLeader(y.buf, y.spans)).rejects.toSatisfy((e) =>
      isSluiceError(e, 'NOT_LEADER_OR_FOLLOWER'),
    )
  })
})
