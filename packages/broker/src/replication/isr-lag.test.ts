import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { describe, expect, it, onTestFinished } from 'vitest'
import { ManualClock, defaultTopicConfig, type wire } from '@sluice/protocol'
import { DEFAULT_LOG_CONFIG, LogManager } from '../log/index.js'
import type { PartitionStateView } from '../metadata-cache.js'
import { Partition } from '../partition.js'
import { ReplicaManager } from '../replica-manager.js'
import type { IsrChangeRequest } from './isr-change.js'

const LAG_MAX_MS = 1000

async function openLogManager(): Promise<LogManager> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-isr-lag-'))
  const manager = await LogManager.open({ dataDir: dir, logger: pino({ level: 'silent' }) })
  onTestFinished(async () => {
    await manager.close()
    await rm(dir, { recursive: true, force: true })
  })
  return manager
}

/** Broker 1 leads replicas [1, 2], both in the ISR. */
const LEADING: PartitionStateView = {
  topic: 't',
  partition: 0,
  leader: 1,
  leaderEpoch: 1,
  replicas: [1, 2],
  isr: [1, 2],
  partitionEpoch: 1,
  topicId: 'id',
}

/** A leading Partition on a ManualClock; its ISR change requests are recorded, never answered. */
async function leaderWithFollower() {
  const manager = await openLogManager()
  const log = await manager.getOrCreateLog('t', 0, { ...DEFAULT_LOG_CONFIG })
  const clock = new ManualClock(1_000_000)
  const proposals: IsrChangeRequest[] = []
  const partition = new Partition(
    't',
    0,
    't/0',
    log,
    1,
    {
      onHighWatermarkAdvanced: () => {},
      onStateChange: () => {},
      alterPartition: async (_t, _p, req) => {
        proposals.push(req)
        return await new Promise<wire.AlterPartitionResponse__Output>(() => {}) // never answered: one proposal is enough
      },
    },
    { replicaLagMaxMs: LAG_MAX_MS, clock },
  )
  await partition.applyState(LEADING)
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

  it("counts a new leadership's ISR members as caught up from the moment it began", async () => {
    const { partition, clock, proposals } = await leaderWithFollower()
    clock.advance(LAG_MAX_MS)
    partition.maybeShrinkIsr()
    expect(proposals).toEqual([])
    clock.advance(1)
    partition.maybeShrinkIsr()
    expect(proposals.map((p) => p.newIsr)).toEqual([[1]])
  })

  it('the replica manager runs the shrink check on its clock, every replicaLagMaxMs / 2', async () => {
    const manager = await openLogManager()
    const clock = new ManualClock(1_000_000)
    const proposals: IsrChangeRequest[] = []
    const replicas = new ReplicaManager({
      brokerId: 1,
      logManager: manager,
      logger: pino({ level: 'silent' }),
      replicaLagMaxMs: LAG_MAX_MS,
      highWatermarkCheckpointIntervalMs: 0,
      clock,
      hooks: {
        onHighWatermarkAdvanced: () => {},
        onStateChange: () => {},
        alterPartition: async (_t, _p, req) => {
          proposals.push(req)
          return await new Promise<wire.AlterPartitionResponse__Output>(() => {})
        },
      },
    })
    onTestFinished(() => replicas.close())
    await replicas.applyDelta({
      upserted: [LEADING],
      removed: [],
      configTopics: [],
      topicConfig: () => defaultTopicConfig(),
    })
    // The follower never fetches: it lags from 1_001_001 on, and the check at 1_001_500 sees it.
    clock.advance(1499)
    expect(proposals).toEqual([])
    clock.advance(1)
    expect(proposals).toEqual([{ newIsr: [1], leaderEpoch: 1, partitionEpoch: 1 }])
  })
})
