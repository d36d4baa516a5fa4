/**
 * StreamsPartitionAssignor through the SDK's custom-assignor calls, without a broker: each
 * instance's subscriptionUserData goes to the leader's assign(), each member's assignment
 * userData to its onAssignment(); cooperative handover withholds moving tasks so that the SDK's
 * own per-partition withholding (from '@sluice/client/internal', test only) changes nothing.
 */
import { describe, expect, it } from 'vitest'
import type { CustomAssignorInput, Logger, TopicPartition } from '@sluice/client'
import { assignors } from '@sluice/client/internal'
import type { TaskId } from '../../api/task-id.js'
import { StreamsError } from '../../errors.js'
import { StreamsPartitionAssignor, type StreamsTaskAssignment } from './streams-partition-assignor.js'

const subtopologies = [
  { id: 0, sourceTopics: ['words'] },
  { id: 1, sourceTopics: ['app-counts-repartition'] },
]
const partitionsPerTopic = new Map([
  ['words', 3],
  ['app-counts-repartition', 3],
])

interface Instance {
  id: string
  assignor: StreamsPartitionAssignor
  received: StreamsTaskAssignment[]
  active: TaskId[]
  standby: { task: TaskId; lag: number }[]
  owned: TopicPartition[]
}

function instance(id: string, protocol: 'eager' | 'cooperative' = 'eager', logger?: Logger): Instance {
  const self: Instance = { id, received: [], active: [], standby: [], owned: [] } as unknown as Instance
  self.assignor = new StreamsPartitionAssignor({
    subtopologies,
    numStandbyReplicas: 1,
    rebalanceProtocol: protocol,
    ...(logger !== undefined ? { logger } : {}),
    localState: () => ({
      instanceId: id,
      endpoint: `${id}:7070`,
      activeTasks: self.active,
      standbyTasks: self.standby,
    }),
    onTasks: (a) => {
      self.received.push(a)
      self.active = [...a.activeTasks]
      self.standby = a.standbyTasks.map((task) => ({ task, lag: 0 }))
      self.owned = [...a.partitions]
    },
  })
  return self
}

/** One rebalance as the SDK runs it: every member's userData to the leader, each answer back. */
function rebalance(members: Instance[], generationId: number): CustomAssignorInput {
  const input: CustomAssignorInput = {
    partitionsPerTopic,
    members: members.map((m) => ({
      memberId: `member-${m.id}`,
      topics: [...partitionsPerTopic.keys()],
      ownedPartitions: m.owned,
      generation: generationId - 1,
      userData: m.assignor.subscriptionUserData(),
    })),
  }
  const result = members[0]!.assignor.assign(input)
  for (const m of members) {
    const mine = result.get(`member-${m.id}`)!
    m.assignor.onAssignment({
      memberId: `member-${m.id}`,
      generationId,
      partitions: mine.partitions,
      userData: mine.userData ?? null,
    })
  }
  return input
}

const keys = (tasks: readonly TaskId[]): string[] => tasks.map((t) => `${t.subtopology}_${t.partition}`)

describe('StreamsPartitionAssignor', () => {
  it('hands every member its active and standby tasks, their partitions and the endpoint map', () => {
    const members = ['a', 'b'].map((id) => instance(id))
    rebalance(members, 1)
    const [a, b] = members.map((m) => m.received.at(-1)!)
    expect(keys([...a!.activeTasks, ...b!.activeTasks]).sort()).toEqual(['0_0', '0_1', '0_2', '1_0', '1_1', '1_2'])
    expect(a!.activeTasks).toHaveLength(3)
    expect(keys(a!.standbyTasks).sort()).toEqual(keys(b!.activeTasks).sort())
    expect(a!.generationId).toBe(1)
    expect(a!.partitionsByEndpoint.get('b:7070')).toEqual(b!.partitions)
    expect([...a!.partitionsByEndpoint]).toEqual([...b!.partitionsByEndpoint])
    // The partitions are exactly those of the active tasks.
    for (const r of [a!, b!])
      expect(r.partitions.map((tp) => `${tp.topic === 'words' ? 0 : 1}_${tp.partition}`).sort()).toEqual(
        keys(r.activeTasks).sort(),
      )
  })

  it('eager: a third instance takes two tasks, the others keep four of their six', () => {
    const members = ['a', 'b'].map((id) => instance(id))
    rebalance(members, 1)
    const before = new Map(members.map((m) => [m.id, new Set(keys(m.active))]))
    const c = instance('c')
    rebalance([...members, c], 2)
    for (const m of members) {
      expect(m.active).toHaveLength(2)
      for (const k of keys(m.active)) expect(before.get(m.id)!.has(k)).toBe(true)
    }
    expect(c.active).toHaveLength(2)
  })

  it('cooperative: a moving task is withheld for one round, then handed over; the SDK withholds nothing more', () => {
    const members = ['a', 'b'].map((id) => instance(id, 'cooperative'))
    rebalance(members, 1)
    const c = instance('c', 'cooperative')
    const all = [...members, c]
    const input = rebalance(all, 2)
    // c's tasks all belonged to a or b, which still reported owning them: nothing for c yet.
    expect(c.active).toEqual([])
    expect(members.map((m) => m.active.length)).toEqual([2, 2])
    const result = members[0]!.assignor.assign(input)
    const partitions = new Map([...result].map(([id, r]) => [id, r.partitions]))
    expect(assignors.cooperativeAdjust(partitions, input)).toEqual(partitions)
    // The follow-up rebalance: a and b revoked them, c gets them.
    rebalance(all, 3)
    expect(all.map((m) => m.active.length)).toEqual([2, 2, 2])
    const routed = c.received.at(-1)!.partitionsByEndpoint.get('c:7070')!
    expect(routed).toEqual(c.owned)
  })

  it('places a member with undecodable userData as one without state, and logs it', () => {
    const warnings: string[] = []
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: (_o: object, msg?: string) => {
        warnings.push(msg ?? '')
      },
      error: () => {},
      child: () => logger,
    }
    const leader = instance('a', 'eager', logger)
    const result = leader.assignor.assign({
      partitionsPerTopic,
      members: [
        { memberId: 'member-a', topics: ['words'], userData: leader.assignor.subscriptionUserData() },
        { memberId: 'member-x', topics: ['words'], userData: Buffer.from([0xde, 0xad]) },
        { memberId: 'member-y', topics: ['words'], userData: null },
      ],
    })
    expect([...result.values()].map((r) => r.partitions.length)).toEqual([2, 2, 2])
    expect(warnings).toHaveLength(2)
  })

  it('throws a StreamsError for undecodable assignment userData and bad options', () => {
    const a = instance('a')
    expect(() => a.assignor.onAssignment({ memberId: 'm', generationId: 1, partitions: [], userData: null })).toThrow(
      StreamsError,
    )
    expect(() =>
      a.assignor.onAssignment({ memberId: 'm', generationId: 1, partitions: [], userData: Buffer.from([1, 0]) }),
    ).toThrow(StreamsError)
    const ok = { subtopologies, localState: () => a.assignor.subscriptionUserData() as never, onTasks: () => {} }
    expect(() => new StreamsPartitionAssignor({ ...ok, numStandbyReplicas: -1 })).toThrow(StreamsError)
    expect(
      () => new StreamsPartitionAssignor({ ...ok, numStandbyReplicas: 0, rebalanceProtocol: 'lazy' as 'eager' }),
    ).toThrow(/rebalanceProtocol/)
    expect(
      () =>
        new StreamsPartitionAssignor({ ...ok, numStandbyReplicas: 0, subtopologies: [{ id: 0, sourceTopics: [''] }] }),
    ).toThrow(expect.objectContaining({ code: 'TOPOLOGY' }))
    expect(a.assignor.name).toBe('sluice-streams')
  })
})
