import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { describe, expect, it, onTestFinished } from 'vitest'
import { ManualClock, type wire } from '@sluice/protocol'
import { DEFAULT_LOG_CONFIG, LogManager } from '../log/index.js'
import type { PartitionStateView } from '../metadata-cache.js'
import { Partition } from '../partition.js'
import type { IsrChangeRequest } from './isr-change.js'

const LAG_MAX_MS = 1000

/** A leader (broker 1) of replicas [1, 2] with both in the ISR, on a ManualClock. */
async function leaderWithFollower () {
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-isr-lag-'))
  const manager = await LogManager.open({ dataDir: dir, logger: pino({ level: 'silent' }) })
  onTestFinished(async () => { await manager.close(); await rm(dir, { recursive: true, force: true }) })
  const log = await manager.getOrCreateLog('t', 0, { ...DEFAULT_LOG_CONFIG })
  const clock = new ManualClock(1_000_000)
  const proposals: IsrChangeRequest[] = []
  const partition = new Partition('t', 0, 't/0', log, 1, {
    onHighWatermarkAdvanced: () => {},
    onStateChange: () => {},
    alterPartition: async (_t, _p, req) => {
      proposals.push(req)
      return await new Promise<wire.AlterPartitionResponse__Output>(() => {}) // never answered: one proposal is enough
    },
  }, { replicaLagMaxMs: LAG_MAX_MS, clock })
  const state: PartitionStateView = { topic: 't', partition: 0, leader: 1, leaderEpoch: 1, replicas: [1, 2], isr: [1, 2], partitionEpoch: 1, topicId: 'id' }
  await partition.applyState(state)
  onTestFinished(() => partition.close())
  return { partition, clock, proposals }
}

describe('ISR shrink on replica lag', () => {
  it('keeps a follower for replicaLagMaxMs after it last caught up, and proposes removing it one ms later', async () => {
    const { partition, clock, proposals } = await leaderWithFollower()
    clock.advance(600)
    partition.recordFollowerFetch(2, partition.logEndOffset) // caught up now: the lag counts from here
    clock.advance(LAG_MAX_MS)
    partition.maybeShrinkIsr()
    expect(proposals).toEqual([])
    clock.advance(1)
    partition.maybeShrinkIsr()
    expect(proposals).toEqual([{ newIsr: [1], leaderEpoch: 1, partitionEpoch: 1 }])
  })

  it('counts a new leadership\'s ISR members as caught up from the moment it began', async () => {
    const { partition, clock, proposals } = await leaderWithFollower()
    clock.advance(LAG_MAX_MS)
    partition.maybeShrinkIsr()
    expect(proposals).toEqual([])
    clock.advance(1)
    partition.maybeShrinkIsr()
    expect(proposals.map((p) => p.newIsr)).toEqual([[1]])
  })
})
