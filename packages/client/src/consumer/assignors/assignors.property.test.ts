/**
 * Property tests of the assignors (docs/design.md §8): every partition to exactly one
 * subscriber, balance within one partition, and stickiness across membership changes.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { TopicPartition } from '../consumer-types.js'
import {
  cooperativeStickyAssignor,
  rangeAssignor,
  roundRobinAssignor,
  stickyTarget,
  type Assignment,
  type AssignmentInput,
  type AssignorMember,
} from './index.js'

const TOPICS = ['a', 'b', 'c', 'd']
const key = (tp: TopicPartition): string => `${tp.topic}/${tp.partition}`

const partitionsArb = fc.record({
  a: fc.integer({ min: 1, max: 12 }),
  b: fc.integer({ min: 1, max: 12 }),
  c: fc.integer({ min: 1, max: 12 }),
  d: fc.integer({ min: 0, max: 3 }),
})
const memberIdsArb = fc.uniqueArray(fc.stringMatching(/^[a-z]{1,4}$/), { minLength: 1, maxLength: 8 })

/** Members with arbitrary (non-empty) subscriptions. */
const mixedArb = fc.tuple(memberIdsArb, partitionsArb).chain(([ids, partitions]) =>
  fc
    .tuple(
      fc.array(fc.subarray(TOPICS, { minLength: 1 }), { minLength: ids.length, maxLength: ids.length }),
      fc.constant(partitions),
    )
    .map(([subs, p]) => ({
      members: ids.map((memberId, i) => ({ memberId, topics: subs[i]! })),
      partitionsPerTopic: p as Record<string, number>,
    })),
)

/** Members all subscribed to the same topics. */
const equalArb = fc
  .tuple(memberIdsArb, partitionsArb, fc.subarray(TOPICS, { minLength: 1 }))
  .map(([ids, p, topics]) => ({
    members: ids.map((memberId) => ({ memberId, topics })),
    partitionsPerTopic: p as Record<string, number>,
  }))

function expectedPartitions(input: AssignmentInput): string[] {
  const p = input.partitionsPerTopic as Record<string, number>
  const topics = new Set(input.members.flatMap((m) => m.topics))
  return [...topics].flatMap((t) => Array.from({ length: p[t] ?? 0 }, (_, i) => `${t}/${i}`)).sort()
}

function checkExactlyOnce(input: AssignmentInput, a: Assignment): void {
  expect([...a.keys()].sort()).toEqual(input.members.map((m) => m.memberId).sort())
  const all = [...a.values()].flat().map(key)
  expect([...all].sort()).toEqual(expectedPartitions(input))
  for (const [memberId, list] of a) {
    const m = input.members.find((x) => x.memberId === memberId)!
    for (const tp of list) check(m.topics.includes(tp.topic), `${memberId} got ${key(tp)} without subscribing`)
  }
}

const counts = (a: Assignment): number[] => [...a.values()].map((l) => l.length)

/** A plain assertion: expect() in the inner loops of hundreds of runs costs seconds. */
function check(ok: boolean, message: string): void {
  if (!ok) throw new Error(message)
}

/** Kafka's balance: nobody two or more below a member could take one of its partitions. */
function checkStickyBalance(input: AssignmentInput, a: Assignment): void {
  for (const [from, list] of a) {
    for (const tp of list) {
      for (const to of input.members) {
        if (to.memberId !== from && to.topics.includes(tp.topic)) {
          check(a.get(to.memberId)!.length >= list.length - 1, `${to.memberId} could take ${key(tp)} from ${from}`)
        }
      }
    }
  }
}

describe('assignor properties', () => {
  it('every partition goes to exactly one subscribed member (range, roundrobin, sticky target)', () => {
    fc.assert(
      fc.property(mixedArb, (input) => {
        checkExactlyOnce(input, rangeAssignor.assign(input))
        checkExactlyOnce(input, roundRobinAssignor.assign(input))
        checkExactlyOnce(input, stickyTarget(input))
        checkExactlyOnce(input, cooperativeStickyAssignor.assign(input)) // nobody owns anything yet
      }),
      { numRuns: 200 },
    )
  })

  it('balances within one partition for equal subscriptions (range per topic)', () => {
    fc.assert(
      fc.property(equalArb, (input) => {
        for (const a of [roundRobinAssignor.assign(input), stickyTarget(input)]) {
          expect(Math.max(...counts(a)) - Math.min(...counts(a))).toBeLessThanOrEqual(1)
        }
        const range = rangeAssignor.assign(input)
        for (const topic of input.members[0]!.topics) {
          const perTopic = [...range.values()].map((l) => l.filter((tp) => tp.topic === topic).length)
          expect(Math.max(...perTopic) - Math.min(...perTopic)).toBeLessThanOrEqual(1)
        }
      }),
      { numRuns: 200 },
    )
  })

  it('the sticky target is balanced as far as subscriptions allow', () => {
    fc.assert(
      fc.property(mixedArb, (input) => {
        checkStickyBalance(input, stickyTarget(input))
      }),
      { numRuns: 200 },
    )
  })

  it('cooperative-sticky: survivors keep their partitions up to their new share, and a second round completes the handover', () => {
    const scenario = fc.tuple(
      equalArb,
      fc.uniqueArray(fc.stringMatching(/^[A-Z]{1,3}$/), { maxLength: 5 }),
      fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
    )
    fc.assert(
      fc.property(scenario, ([input, joiners, stays]) => {
        const before = cooperativeStickyAssignor.assign(input) // a fresh group: full, balanced assignment
        const survivors = input.members.filter((_, i) => stays[i]!)
        const members: AssignorMember[] = [
          ...survivors.map((m) => ({ ...m, ownedPartitions: before.get(m.memberId)!, generation: 1 })),
          ...joiners.map((memberId) => ({ memberId, topics: input.members[0]!.topics, generation: -1 })),
        ]
        fc.pre(members.length > 0)
        const next = { members, partitionsPerTopic: input.partitionsPerTopic }
        const target = stickyTarget(next)
        checkExactlyOnce(next, target)
        expect(Math.max(...counts(target)) - Math.min(...counts(target))).toBeLessThanOrEqual(1)
        for (const m of survivors) {
          const owned = new Set(before.get(m.memberId)!.map(key))
          const kept = target.get(m.memberId)!.filter((tp) => owned.has(key(tp))).length
          expect(kept, `${m.memberId} kept too few`).toBe(Math.min(owned.size, target.get(m.memberId)!.length))
        }
        // Round 1: moving partitions are withheld; each member then owns what it was given.
        const round1 = cooperativeStickyAssignor.assign(next)
        const given = [...round1.values()].flat().map(key)
        expect(new Set(given).size).toBe(given.length)
        for (const m of survivors) {
          const owned = new Set(before.get(m.memberId)!.map(key))
          for (const [other, list] of round1) {
            if (other === m.memberId) continue
            for (const tp of list)
              check(!owned.has(key(tp)), `${key(tp)} given to ${other} while ${m.memberId} still owns it`)
          }
        }
        // Round 2: everyone reports round 1's assignment; now everything is assigned and balanced.
        const round2 = cooperativeStickyAssignor.assign({
          members: members.map((m) => ({ ...m, ownedPartitions: round1.get(m.memberId)!, generation: 2 })),
          partitionsPerTopic: input.partitionsPerTopic,
        })
        checkExactlyOnce(next, round2)
        expect(Math.max(...counts(round2)) - Math.min(...counts(round2))).toBeLessThanOrEqual(1)
        for (const [m, list] of round1) {
          const now = new Set(round2.get(m)!.map(key))
          for (const tp of list) check(now.has(key(tp)), `${m} lost ${key(tp)} in the second round`)
        }
      }),
      { numRuns: 200 },
    )
  })
})
