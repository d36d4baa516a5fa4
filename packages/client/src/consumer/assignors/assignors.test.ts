import { describe, expect, it } from 'vitest'
import type { TopicPartition } from '../consumer-types.js'
import {
  assignorByName,
  cooperativeStickyAssignor,
  rangeAssignor,
  roundRobinAssignor,
  stickyTarget,
  type Assignment,
  type AssignorMember,
} from './index.js'

const tps = (s: string): TopicPartition[] =>
  s
    .split(' ')
    .filter((x) => x !== '')
    .map((x) => {
      const [topic, partition] = x.split('/')
      return { topic: topic!, partition: Number(partition) }
    })
const show = (a: Assignment): Record<string, string> =>
  Object.fromEntries([...a].map(([m, list]) => [m, list.map((tp) => `${tp.topic}/${tp.partition}`).join(' ')]))

const two = (topics: string[]): AssignorMember[] => [
  { memberId: 'c1', topics },
  { memberId: 'c0', topics },
]
const six = { t0: 3, t1: 3 }

describe('range assignor', () => {
  it('assigns contiguous ranges per topic, first members get the extra (docs/kafka-facts.md §5.4 example)', () => {
    expect(show(rangeAssignor.assign({ members: two(['t0', 't1']), partitionsPerTopic: six }))).toEqual({
      c0: 't0/0 t0/1 t1/0 t1/1',
      c1: 't0/2 t1/2',
    })
  })

  it('orders members by group instance id when present', () => {
    const members: AssignorMember[] = [
      { memberId: 'a', groupInstanceId: 'z', topics: ['t'] },
      { memberId: 'b', groupInstanceId: 'y', topics: ['t'] },
    ]
    expect(show(rangeAssignor.assign({ members, partitionsPerTopic: { t: 3 } }))).toEqual({ b: 't/0 t/1', a: 't/2' })
  })

  it('leaves members beyond the partition count idle, and skips unknown topics', () => {
    const members = ['m1', 'm2', 'm3', 'm4'].map((memberId) => ({ memberId, topics: ['t', 'missing'] }))
    expect(show(rangeAssignor.assign({ members, partitionsPerTopic: new Map([['t', 3]]) }))).toEqual({
      m1: 't/0',
      m2: 't/1',
      m3: 't/2',
      m4: '',
    })
  })
})

describe('roundrobin assignor', () => {
  it('deals partitions around the sorted members (docs/kafka-facts.md §5.4 example)', () => {
    expect(show(roundRobinAssignor.assign({ members: two(['t0', 't1']), partitionsPerTopic: six }))).toEqual({
      c0: 't0/0 t0/2 t1/1',
      c1: 't0/1 t1/0 t1/2',
    })
  })

  it('skips members not subscribed to a topic', () => {
    const members: AssignorMember[] = [
      { memberId: 'a', topics: ['x'] },
      { memberId: 'b', topics: ['x', 'y'] },
    ]
    expect(show(roundRobinAssignor.assign({ members, partitionsPerTopic: { x: 2, y: 2 } }))).toEqual({
      a: 'x/0',
      b: 'x/1 y/0 y/1',
    })
  })
})

describe('cooperative-sticky assignor', () => {
  it('balances a fresh group', () => {
    const members = ['a', 'b', 'c'].map((memberId) => ({ memberId, topics: ['t'] }))
    const a = cooperativeStickyAssignor.assign({ members, partitionsPerTopic: { t: 7 } })
    expect([...a.values()].map((l) => l.length).sort()).toEqual([2, 2, 3])
  })

  it('withholds a moving partition for one round, then hands it over', () => {
    // a owned everything; b joins: b's share is withheld now, given once a has revoked it.
    const round1: AssignorMember[] = [
      { memberId: 'a', topics: ['t'], ownedPartitions: tps('t/0 t/1 t/2 t/3'), generation: 1 },
      { memberId: 'b', topics: ['t'], ownedPartitions: [], generation: -1 },
    ]
    const target = stickyTarget({ members: round1, partitionsPerTopic: { t: 4 } })
    expect(show(target)).toEqual({ a: 't/0 t/1', b: 't/2 t/3' })
    const first = cooperativeStickyAssignor.assign({ members: round1, partitionsPerTopic: { t: 4 } })
    expect(show(first)).toEqual({ a: 't/0 t/1', b: '' })
    const round2: AssignorMember[] = [
      { memberId: 'a', topics: ['t'], ownedPartitions: first.get('a'), generation: 2 },
      { memberId: 'b', topics: ['t'], ownedPartitions: [], generation: 2 },
    ]
    expect(show(cooperativeStickyAssignor.assign({ members: round2, partitionsPerTopic: { t: 4 } }))).toEqual({
      a: 't/0 t/1',
      b: 't/2 t/3',
    })
  })

  it('resolves conflicting claims: higher generation wins, equal generations cancel', () => {
    const members: AssignorMember[] = [
      { memberId: 'a', topics: ['t'], ownedPartitions: tps('t/0 t/1'), generation: 5 },
      { memberId: 'b', topics: ['t'], ownedPartitions: tps('t/0'), generation: 4 },
      { memberId: 'c', topics: ['t'], ownedPartitions: tps('t/1'), generation: 5 },
    ]
    const target = stickyTarget({ members, partitionsPerTopic: { t: 3 } })
    expect(target.get('a')!.map((tp) => tp.partition)).toContain(0)
    const final = cooperativeStickyAssignor.assign({ members, partitionsPerTopic: { t: 3 } })
    // t/1 is claimed by two members of generation 5: nobody may get it this round.
    expect([...final.values()].flat().some((tp) => tp.partition === 1)).toBe(false)
    // a is t/0's valid owner and keeps it although b (an older generation) also claims it.
    expect(final.get('a')!.map((tp) => tp.partition)).toContain(0)
  })

  it('balances across different subscriptions as far as eligibility allows', () => {
    const members: AssignorMember[] = [
      { memberId: 'a', topics: ['x'] },
      { memberId: 'b', topics: ['x', 'y'] },
    ]
    const a = stickyTarget({ members, partitionsPerTopic: { x: 2, y: 4 } })
    expect(show(a)).toEqual({ a: 'x/0 x/1', b: 'y/0 y/1 y/2 y/3' })
  })
})

describe('assignorByName', () => {
  it('knows the three built-ins and rejects others with a typed error', () => {
    expect(assignorByName('range').rebalanceProtocol).toBe('eager')
    expect(assignorByName('cooperative-sticky').rebalanceProtocol).toBe('cooperative')
    expect(() => assignorByName('sticky')).toThrow(expect.objectContaining({ code: 'INCONSISTENT_GROUP_PROTOCOL' }))
  })
})
