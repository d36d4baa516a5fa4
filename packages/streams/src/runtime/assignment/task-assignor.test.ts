/**
 * The task assignor on named scenarios: a first placement, a third member joining (only as many
 * tasks move as the balance needs), a member leaving (its tasks go to their freshest standby),
 * members of one instance, a restarted instance with a new member id, and bad input.
 */
import { describe, expect, it } from 'vitest'
import type { TaskId } from '../../api/task-id.js'
import { isStreamsError } from '../../errors.js'
import type { StreamsSubscriptionInfo } from './streams-user-data.js'
import { assignTasks, tasksOf, type TaskAssignment, type TaskAssignorMember } from './task-assignor.js'

// One sub-topology joining two co-partitioned topics: six tasks of two partitions each.
const subtopologies = [{ id: 0, sourceTopics: ['clicks', 'users'] }]
const partitionsPerTopic = new Map([
  ['clicks', 6],
  ['users', 6],
])
const t = (partition: number): TaskId => ({ subtopology: 0, partition })
const ps = (a: TaskAssignment, memberId: string, what: 'activeTasks' | 'standbyTasks'): number[] =>
  a.members.get(memberId)![what].map((x) => x.partition)

function member(memberId: string, info: Partial<StreamsSubscriptionInfo> | null): TaskAssignorMember {
  return {
    memberId,
    info:
      info === null
        ? null
        : { instanceId: memberId, endpoint: `${memberId}:7000`, activeTasks: [], standbyTasks: [], ...info },
  }
}

/** What each member reports after running `a`: its actives, and its standbys at the given lag. */
function after(a: TaskAssignment, ids: string[], lagOf: (memberId: string, task: TaskId) => number = () => 5) {
  return ids.map((id) =>
    member(id, {
      activeTasks: a.members.get(id)?.activeTasks ?? [],
      standbyTasks: (a.members.get(id)?.standbyTasks ?? []).map((task) => ({ task, lag: lagOf(id, task) })),
    }),
  )
}

describe('task assignor', () => {
  it('places six tasks on two fresh members three each, with each standby on the other member', () => {
    const a = assignTasks({
      subtopologies,
      partitionsPerTopic,
      members: [member('b', {}), member('a', {})],
      numStandbyReplicas: 1,
    })
    expect(ps(a, 'a', 'activeTasks')).toEqual([0, 2, 4])
    expect(ps(a, 'b', 'activeTasks')).toEqual([1, 3, 5])
    expect(ps(a, 'a', 'standbyTasks')).toEqual([1, 3, 5])
    expect(ps(a, 'b', 'standbyTasks')).toEqual([0, 2, 4])
    expect(a.members.get('a')!.partitions).toEqual([
      { topic: 'clicks', partition: 0 },
      { topic: 'clicks', partition: 2 },
      { topic: 'clicks', partition: 4 },
      { topic: 'users', partition: 0 },
      { topic: 'users', partition: 2 },
      { topic: 'users', partition: 4 },
    ])
    expect([...a.partitionsByEndpoint.keys()]).toEqual(['a:7000', 'b:7000'])
    expect(a.partitionsByEndpoint.get('b:7000')).toEqual(a.members.get('b')!.partitions)
  })

  it('when a third member joins, moves one task from each of the others to it and nothing else', () => {
    const first = assignTasks({
      subtopologies,
      partitionsPerTopic,
      members: [member('a', {}), member('b', {})],
      numStandbyReplicas: 1,
    })
    const second = assignTasks({
      subtopologies,
      partitionsPerTopic,
      members: [...after(first, ['a', 'b']), member('c', {})],
      numStandbyReplicas: 1,
    })
    expect(ps(second, 'a', 'activeTasks')).toEqual([0, 2])
    expect(ps(second, 'b', 'activeTasks')).toEqual([1, 3])
    expect(ps(second, 'c', 'activeTasks')).toEqual([4, 5])
    const moved = [...second.members].flatMap(([id, m]) =>
      m.activeTasks.filter((x) => !first.members.get(id)?.activeTasks.some((y) => y.partition === x.partition)),
    )
    expect(moved).toHaveLength(2) // ceil(6 / 3) = 2 each: the least that balances
    // The old owners keep the moved tasks' state warm as standbys, and standbys stay balanced.
    expect(ps(second, 'a', 'standbyTasks')).toContain(4)
    expect(ps(second, 'b', 'standbyTasks')).toContain(5)
    expect([...second.members.values()].map((m) => m.standbyTasks.length)).toEqual([2, 2, 2])
  })

  it('when a member leaves, its tasks go to the members holding their standby, the freshest first', () => {
    const ids = ['a', 'b', 'c']
    const first = assignTasks({
      subtopologies,
      partitionsPerTopic,
      members: ids.map((id) => member(id, {})),
      numStandbyReplicas: 2,
    })
    const ofC = ps(first, 'c', 'activeTasks')
    expect(ofC).toHaveLength(2)
    // Both a and b hold standbys of c's tasks; b is fresher on c's first task, a on its second
    // (the opposite of what member order alone would give).
    const lag = (id: string, task: TaskId): number =>
      task.partition === ofC[0] ? (id === 'b' ? 1 : 50) : task.partition === ofC[1] ? (id === 'a' ? 1 : 50) : 5
    const second = assignTasks({
      subtopologies,
      partitionsPerTopic,
      members: after(first, ['a', 'b'], lag),
      numStandbyReplicas: 2,
    })
    expect(ps(second, 'a', 'activeTasks')).toEqual([...ps(first, 'a', 'activeTasks'), ofC[1]!].sort())
    expect(ps(second, 'b', 'activeTasks')).toEqual([...ps(first, 'b', 'activeTasks'), ofC[0]!].sort())
    // Two members left: one standby per task (fewer than numStandbyReplicas), on the other member.
    for (const [id, other] of [
      ['a', 'b'],
      ['b', 'a'],
    ] as const)
      expect(ps(second, id, 'standbyTasks')).toEqual(ps(second, other, 'activeTasks'))
  })

  it('finds a restarted instance by its instance id, whatever its new member id', () => {
    const first = assignTasks({
      subtopologies,
      partitionsPerTopic,
      members: [member('m1', { instanceId: 'east' }), member('m2', { instanceId: 'west' })],
      numStandbyReplicas: 0,
    })
    const restarted = after(first, ['m1', 'm2']).map((m) =>
      m.memberId === 'm1' ? { ...m, memberId: 'zz-new', info: { ...m.info!, instanceId: 'east' } } : m,
    )
    const second = assignTasks({ subtopologies, partitionsPerTopic, members: restarted, numStandbyReplicas: 0 })
    expect(ps(second, 'zz-new', 'activeTasks')).toEqual(ps(first, 'm1', 'activeTasks'))
    expect(ps(second, 'm2', 'activeTasks')).toEqual(ps(first, 'm2', 'activeTasks'))
  })

  it('never puts a standby on the instance of the active copy, even through another member there', () => {
    const a = assignTasks({
      subtopologies,
      partitionsPerTopic,
      members: [
        member('a1', { instanceId: 'A' }),
        member('a2', { instanceId: 'A' }),
        member('b1', { instanceId: 'B' }),
      ],
      numStandbyReplicas: 2,
    })
    // Two instances: one standby copy per task, always on the other instance.
    const onA = [...ps(a, 'a1', 'activeTasks'), ...ps(a, 'a2', 'activeTasks')].sort()
    expect([...ps(a, 'a1', 'standbyTasks'), ...ps(a, 'a2', 'standbyTasks')].sort()).toEqual(ps(a, 'b1', 'activeTasks'))
    expect(ps(a, 'b1', 'standbyTasks')).toEqual(onA)
  })

  it('ignores state for tasks the topology no longer has, and answers members without userData', () => {
    const a = assignTasks({
      subtopologies,
      partitionsPerTopic,
      members: [
        member('a', {
          activeTasks: [t(99), { subtopology: 7, partition: 0 }],
          standbyTasks: [{ task: t(42), lag: 0 }],
        }),
        member('b', null),
      ],
      numStandbyReplicas: 1,
    })
    expect(ps(a, 'a', 'activeTasks')).toHaveLength(3)
    expect(ps(a, 'b', 'activeTasks')).toHaveLength(3)
    expect([...a.partitionsByEndpoint.keys()]).toEqual(['a:7000']) // b has no endpoint
  })

  it('has no tasks for sub-topologies whose topics do not exist, and no members is no placement', () => {
    expect(tasksOf([{ id: 3, sourceTopics: ['missing'] }], partitionsPerTopic)).toEqual([])
    const empty = assignTasks({ subtopologies, partitionsPerTopic, members: [], numStandbyReplicas: 1 })
    expect(empty.members.size).toBe(0)
    // Topics of different sizes: a task reads the partitions its topics have.
    const uneven = tasksOf(
      [{ id: 0, sourceTopics: ['x', 'y'] }],
      new Map([
        ['x', 2],
        ['y', 1],
      ]),
    )
    expect(uneven.map((u) => u.partitions.map((tp) => `${tp.topic}/${tp.partition}`))).toEqual([
      ['x/0', 'y/0'],
      ['x/1'],
    ])
  })

  it('gives tasks of a stateless sub-topology no standby, and spreads the stateful ones', () => {
    const subs = [
      { id: 0, sourceTopics: ['clicks'], stateful: false },
      { id: 1, sourceTopics: ['counts-repartition'] },
    ]
    const partitions = new Map([
      ['clicks', 3],
      ['counts-repartition', 3],
    ])
    const a = assignTasks({
      subtopologies: subs,
      partitionsPerTopic: partitions,
      members: ['m1', 'm2', 'm3'].map((id) => member(id, {})),
      numStandbyReplicas: 1,
    })
    const standbys = [...a.members.values()].flatMap((m) => m.standbyTasks)
    expect(standbys.every((x) => x.subtopology === 1)).toBe(true)
    expect(standbys).toHaveLength(3)
    // One each: the share counts the stateful tasks only.
    expect([...a.members.values()].map((m) => m.standbyTasks.length)).toEqual([1, 1, 1])
    expect(() =>
      assignTasks({
        subtopologies: [{ id: 0, sourceTopics: ['clicks'], stateful: 'no' as unknown as boolean }],
        partitionsPerTopic: partitions,
        members: [],
        numStandbyReplicas: 1,
      }),
    ).toThrow(/stateful must be a boolean/)
  })

  it('refuses a bad numStandbyReplicas, duplicate sub-topology ids and duplicate members with typed errors', () => {
    const base = { subtopologies, partitionsPerTopic, members: [member('a', {})], numStandbyReplicas: 0 }
    for (const bad of [
      { ...base, numStandbyReplicas: -1 },
      { ...base, numStandbyReplicas: 1.5 },
      { ...base, subtopologies: [subtopologies[0]!, subtopologies[0]!] },
      { ...base, members: [member('a', {}), member('a', {})] },
    ]) {
      let caught: unknown
      try {
        assignTasks(bad)
      } catch (err) {
        caught = err
      }
      expect(isStreamsError(caught)).toBe(true)
    }
  })
})
