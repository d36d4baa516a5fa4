/**
 * Kafka's CooperativeStickyAssignor (AbstractStickyAssignor + KIP-429), in two steps.
 *
 * 1. `stickyTarget`: the balanced, sticky assignment. Goals in priority order: balance (counts
 *    differ by at most one, or no member two or more below another could take one of its
 *    partitions), then keep previous owners. Previous ownership comes from each member's
 *    ownedPartitions + generation: a partition claimed by two members goes to the higher
 *    generation; two claims of the same generation cancel out. Each member keeps its valid
 *    claims; unowned partitions go to the least-loaded eligible member (partitions with the
 *    fewest eligible members first); then partitions move one at a time from the most- to a
 *    least-loaded eligible member until no move improves balance. A member that must give up
 *    partitions gives those it did not own before first, so nothing moves that need not.
 * 2. `cooperativeAdjust`: a partition that moves from A to B is withheld from B this round. A
 *    revokes only it and rejoins at once; in the follow-up rebalance nobody claims it and it goes
 *    to B. No partition is ever consumed by two members at the same time, and everything else
 *    is consumed without pause through both rounds.
 * Every step iterates in a fixed order, so the result depends only on the input.
 */
import type { TopicPartition } from '../consumer-types.js'
import {
  compareTp,
  emptyAssignment,
  partitionCount,
  sortAssignment,
  sortMembers,
  type Assignment,
  type AssignmentInput,
  type Assignor,
  type AssignorMember,
} from './assignor-types.js'

function key(tp: TopicPartition): string {
  return `${tp.topic}\u0000${tp.partition}`
}

/** The valid previous owner of every partition it still makes sense to keep. */
export function validOwners(input: AssignmentInput): Map<string, string> {
  const best = new Map<string, { memberId: string; generation: number; tied: boolean }>()
  for (const m of sortMembers(input.members)) {
    const generation = m.generation ?? -1
    for (const tp of m.ownedPartitions ?? []) {
      const n = partitionCount(input, tp.topic)
      if (n === undefined || tp.partition < 0 || tp.partition >= n || !m.topics.includes(tp.topic)) continue
      const k = key(tp)
      const cur = best.get(k)
      if (cur === undefined || generation > cur.generation)
        best.set(k, { memberId: m.memberId, generation, tied: false })
      else if (generation === cur.generation && cur.memberId !== m.memberId) cur.tied = true
    }
  }
  const owners = new Map<string, string>()
  for (const [k, v] of best) if (!v.tied) owners.set(k, v.memberId)
  return owners
}

/** Step 1: the balanced, sticky target assignment (no cooperative adjustment). */
export function stickyTarget(input: AssignmentInput): Assignment {
  const members = sortMembers(input.members)
  const order = new Map(members.map((m, i) => [m.memberId, i]))
  const subscribers = new Map<string, AssignorMember[]>()
  const all: TopicPartition[] = []
  for (const topic of [...new Set(members.flatMap((m) => m.topics))].sort()) {
    const n = partitionCount(input, topic)
    if (n === undefined) continue
    subscribers.set(
      topic,
      members.filter((m) => m.topics.includes(topic)),
    )
    for (let partition = 0; partition < n; partition++) all.push({ topic, partition })
  }
  const owners = validOwners(input)
  const held = new Map<string, Map<string, TopicPartition>>(members.map((m) => [m.memberId, new Map()]))
  const unowned: TopicPartition[] = []
  for (const tp of all) {
    const owner = owners.get(key(tp))
    if (owner !== undefined) held.get(owner)!.set(key(tp), tp)
    else unowned.push(tp)
  }
  const count = (memberId: string): number => held.get(memberId)!.size
  const leastLoaded = (candidates: readonly AssignorMember[]): AssignorMember =>
    candidates.reduce((best, m) => (count(m.memberId) < count(best.memberId) ? m : best))

  // Partitions with fewer possible owners first: they constrain the balance most.
  unowned.sort((a, b) => subscribers.get(a.topic)!.length - subscribers.get(b.topic)!.length || compareTp(a, b))
  for (const tp of unowned) held.get(leastLoaded(subscribers.get(tp.topic)!).memberId)!.set(key(tp), tp)

  // Each move lowers the sum of squared counts by at least 2, so this ends within P^2 / 2 moves.
  for (let guard = all.length * all.length + 1; guard > 0; guard--) {
    const byLoad = [...members].sort(
      (a, b) => count(b.memberId) - count(a.memberId) || order.get(a.memberId)! - order.get(b.memberId)!,
    )
    let moved = false
    for (const from of byLoad) {
      const mine = [...held.get(from.memberId)!.values()]
      // Give away partitions this member did not own before first, then the highest ones.
      mine.sort(
        (a, b) =>
          Number(owners.get(key(a)) === from.memberId) - Number(owners.get(key(b)) === from.memberId) ||
          compareTp(b, a),
      )
      for (const tp of mine) {
        const to = leastLoaded(subscribers.get(tp.topic)!)
        if (count(to.memberId) <= count(from.memberId) - 2) {
          held.get(from.memberId)!.delete(key(tp))
          held.get(to.memberId)!.set(key(tp), tp)
          moved = true
          break
        }
      }
      if (moved) break
    }
    if (!moved) break
  }
  const out = emptyAssignment(input.members)
  for (const [memberId, parts] of held) out.set(memberId, [...parts.values()])
  return sortAssignment(out)
}

/**
 * Step 2 (KIP-429): withholds from each member the partitions another member still claims,
 * unless the member itself is the partition's valid owner. Also safe for eager assignors, where
 * members that revoked everything claim nothing and this changes nothing.
 */
export function cooperativeAdjust(target: Assignment, input: AssignmentInput): Assignment {
  const owners = validOwners(input)
  const claimants = new Map<string, Set<string>>()
  for (const m of input.members) {
    for (const tp of m.ownedPartitions ?? []) {
      const set = claimants.get(key(tp)) ?? new Set<string>()
      set.add(m.memberId)
      claimants.set(key(tp), set)
    }
  }
  const out: Assignment = new Map()
  for (const [memberId, parts] of target) {
    out.set(
      memberId,
      parts.filter((tp) => {
        const k = key(tp)
        if (owners.get(k) === memberId) return true
        const others = [...(claimants.get(k) ?? [])].filter((c) => c !== memberId)
        return others.length === 0
      }),
    )
  }
  return out
}

export const cooperativeStickyAssignor: Assignor = {
  name: 'cooperative-sticky',
  rebalanceProtocol: 'cooperative',
  assign(input: AssignmentInput): Assignment {
    return cooperativeAdjust(stickyTarget(input), input)
  },
}
