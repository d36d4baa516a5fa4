/**
 * Property tests of the task assignor: every task active on exactly one member, active counts
 * within one, standby copies on other instances and as many as possible up to
 * numStandbyReplicas, the same output for the same (or a reordered) input, a fixpoint when
 * nothing changes, and only moves towards new members when members join.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { TaskId } from '../../api/task-id.js'
import type { StreamsSubscriptionInfo } from './streams-user-data.js'
import {
  assignTasks,
  tasksOf,
  type TaskAssignment,
  type TaskAssignmentInput,
  type TaskAssignorMember,
} from './task-assignor.js'

const key = (t: TaskId): string => `${t.subtopology}_${t.partition}`

const topologyArb = fc.record({
  subtopologies: fc.constant([
    { id: 0, sourceTopics: ['a', 'b'] },
    { id: 1, sourceTopics: ['app-x-repartition'] },
    { id: 2, sourceTopics: ['c'] },
  ]),
  partitionsPerTopic: fc
    .record({
      a: fc.integer({ min: 0, max: 9 }),
      b: fc.integer({ min: 0, max: 9 }),
      'app-x-repartition': fc.integer({ min: 1, max: 6 }),
      c: fc.integer({ min: 0, max: 4 }),
    })
    .map((r) => new Map(Object.entries(r).filter(([, n]) => n > 0))),
})

const anyTaskArb = fc.record({ subtopology: fc.nat({ max: 3 }), partition: fc.nat({ max: 10 }) })

/** Members with arbitrary (even conflicting or stale) previous state; some share an instance. */
const membersArb = fc.uniqueArray(fc.stringMatching(/^m[a-z0-9]{1,4}$/), { minLength: 1, maxLength: 7 }).chain((ids) =>
  fc.tuple(
    ...ids.map((memberId) =>
      fc.record({
        memberId: fc.constant(memberId),
        info: fc.option(
          fc.record({
            instanceId: fc.constantFrom('', 'i1', 'i2', 'i3', memberId),
            endpoint: fc.constantFrom('', `${memberId}:80`, 'shared:80'),
            activeTasks: fc.array(anyTaskArb, { maxLength: 6 }),
            standbyTasks: fc.array(fc.record({ task: anyTaskArb, lag: fc.nat({ max: 1000 }) }), { maxLength: 6 }),
          }),
          { nil: null, freq: 5 },
        ),
      }),
    ),
  ),
)

const inputArb: fc.Arbitrary<TaskAssignmentInput> = fc
  .tuple(topologyArb, membersArb, fc.nat({ max: 3 }))
  .map(([t, members, numStandbyReplicas]) => ({ ...t, members, numStandbyReplicas }))

const instanceOf = (m: TaskAssignorMember): string =>
  m.info !== null && m.info.instanceId !== '' ? m.info.instanceId : m.memberId

/** The state each member would report after running `a` (its actives at lag 0, its standbys at lag 1). */
function reported(input: TaskAssignmentInput, a: TaskAssignment, memberIds: string[]): TaskAssignorMember[] {
  return memberIds.map((memberId) => {
    const old = input.members.find((m) => m.memberId === memberId)
    const mine = a.members.get(memberId)
    const info: StreamsSubscriptionInfo = {
      instanceId: old?.info?.instanceId || memberId,
      endpoint: `${memberId}:80`,
      activeTasks: mine?.activeTasks ?? [],
      standbyTasks: (mine?.standbyTasks ?? []).map((task) => ({ task, lag: 1 })),
    }
    return { memberId, info }
  })
}

describe('task assignor properties', () => {
  it('places every task active exactly once, balanced within one, with its partitions', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const out = assignTasks(input)
        const all = tasksOf(input.subtopologies, input.partitionsPerTopic)
        expect([...out.members.keys()].sort()).toEqual(input.members.map((m) => m.memberId).sort())
        const active = [...out.members.values()].flatMap((m) => m.activeTasks.map(key))
        expect(active.sort()).toEqual(all.map((t) => key(t.id)).sort())
        const counts = [...out.members.values()].map((m) => m.activeTasks.length)
        expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1)
        const sources = new Map(all.map((t) => [key(t.id), t.partitions]))
        for (const m of out.members.values()) {
          const expected = m.activeTasks.flatMap((t) => sources.get(key(t))!.map((tp) => `${tp.topic}/${tp.partition}`))
          expect(m.partitions.map((tp) => `${tp.topic}/${tp.partition}`).sort()).toEqual(expected.sort())
        }
        // Every active partition is routed to the endpoint of its member.
        for (const im of input.members) {
          const endpoint = im.info?.endpoint ?? ''
          if (endpoint === '') continue
          const routed = new Set(out.partitionsByEndpoint.get(endpoint)!.map((tp) => `${tp.topic}/${tp.partition}`))
          for (const tp of out.members.get(im.memberId)!.partitions)
            expect(routed.has(`${tp.topic}/${tp.partition}`)).toBe(true)
        }
      }),
      { numRuns: 300 },
    )
  })

  it('puts min(numStandbyReplicas, instances - 1) standby copies per task, each on another instance than the others', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const out = assignTasks(input)
        const instances = new Set(input.members.map(instanceOf))
        const copies = Math.min(input.numStandbyReplicas, instances.size - 1)
        const holders = new Map<string, string[]>()
        for (const m of input.members) {
          const mine = out.members.get(m.memberId)!
          for (const t of [...mine.activeTasks, ...mine.standbyTasks])
            holders.set(key(t), [...(holders.get(key(t)) ?? []), instanceOf(m)])
        }
        for (const t of tasksOf(input.subtopologies, input.partitionsPerTopic)) {
          const where = holders.get(key(t.id))!
          expect(where).toHaveLength(1 + copies)
          expect(new Set(where).size).toBe(where.length)
        }
      }),
      { numRuns: 300 },
    )
  })

  it('gives the same placement for the same input, in any member order', () => {
    fc.assert(
      fc.property(inputArb, fc.integer(), (input, seed) => {
        const shuffled = [...input.members].sort(
          (a, b) => ((a.memberId.charCodeAt(1) * seed) % 7) - ((b.memberId.charCodeAt(1) * seed) % 7),
        )
        const a = assignTasks(input)
        const b = assignTasks({ ...input, members: shuffled })
        for (const [memberId, tasks] of a.members) expect(b.members.get(memberId)).toEqual(tasks)
        expect([...b.partitionsByEndpoint]).toEqual([...a.partitionsByEndpoint])
        expect(assignTasks(input)).toEqual(a)
      }),
      { numRuns: 200 },
    )
  })

  it('keeps a placement when members report it back, and moves tasks only to members that join', () => {
    fc.assert(
      fc.property(inputArb, fc.nat({ max: 3 }), (input, joining) => {
        const first = assignTasks(input)
        const ids = input.members.map((m) => m.memberId)
        const again = assignTasks({ ...input, members: reported(input, first, ids) })
        for (const id of ids) expect(again.members.get(id)!.activeTasks).toEqual(first.members.get(id)!.activeTasks)
        const newIds = Array.from({ length: joining }, (_, i) => `new${i}`)
        const grown = assignTasks({ ...input, members: reported(input, first, [...ids, ...newIds]) })
        for (const id of ids) {
          const before = new Set(first.members.get(id)!.activeTasks.map(key))
          for (const t of grown.members.get(id)!.activeTasks) expect(before.has(key(t))).toBe(true)
        }
      }),
      { numRuns: 300 },
    )
  })

  it('without standbys, members that stay keep all their tasks when others leave', () => {
    fc.assert(
      fc.property(inputArb, fc.nat(), (input, drop) => {
        const ids = input.members.map((m) => m.memberId)
        const first = assignTasks({ ...input, numStandbyReplicas: 0 })
        const stay = ids.filter((_, i) => ids.length === 1 || i !== drop % ids.length)
        const shrunk = assignTasks({
          ...input,
          numStandbyReplicas: 0,
          members: reported(input, first, stay).map((m) => ({ ...m, info: { ...m.info!, standbyTasks: [] } })),
        })
        for (const id of stay) {
          const now = new Set(shrunk.members.get(id)!.activeTasks.map(key))
          for (const t of first.members.get(id)!.activeTasks) expect(now.has(key(t))).toBe(true)
        }
      }),
      { numRuns: 300 },
    )
  })
})
