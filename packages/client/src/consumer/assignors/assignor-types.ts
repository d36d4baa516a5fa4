/**
 * What a partition assignor sees and returns. Assignors are pure functions run by the group
 * leader (client side, as in Kafka's classic protocol): the same input always gives the same
 * output, so a re-elected leader computes the same assignment.
 */
import type { TopicPartition } from '../consumer-types.js'

export interface AssignorMember {
  memberId: string
  /** Static membership: when present it orders members instead of the member id (stable across restarts). */
  groupInstanceId?: string
  /** Subscribed topics. */
  topics: string[]
  /** What the member consumed in the generation it reports (cooperative / sticky assignors). */
  ownedPartitions?: TopicPartition[]
  /** The generation ownedPartitions belong to; -1 or absent when unknown. */
  generation?: number
}

export interface AssignmentInput {
  members: AssignorMember[]
  /** Partition count per topic; topics missing here (not existing yet) are not assigned. */
  partitionsPerTopic: ReadonlyMap<string, number> | Readonly<Record<string, number>>
}

/** memberId -> its partitions, sorted by topic then partition. Every member has an entry. */
export type Assignment = Map<string, TopicPartition[]>

export type AssignorName = 'range' | 'roundrobin' | 'cooperative-sticky'

export interface Assignor {
  readonly name: AssignorName
  /**
   * 'eager': members give up every partition before rejoining; 'cooperative': they keep what
   * they own through the rebalance and revoke only what the new assignment takes away.
   */
  readonly rebalanceProtocol: 'eager' | 'cooperative'
  assign(input: AssignmentInput): Assignment
}

export function partitionCount(input: AssignmentInput, topic: string): number | undefined {
  const p = input.partitionsPerTopic
  const n = p instanceof Map ? p.get(topic) : (p as Readonly<Record<string, number>>)[topic]
  return typeof n === 'number' && n > 0 ? n : undefined
}

/** Kafka's member order: group instance id when present, else member id (lexicographic). */
export function sortMembers(members: readonly AssignorMember[]): AssignorMember[] {
  const key = (m: AssignorMember): string =>
    m.groupInstanceId !== undefined && m.groupInstanceId !== '' ? m.groupInstanceId : m.memberId
  return [...members].sort((a, b) => {
    const ka = key(a)
    const kb = key(b)
    if (ka !== kb) return ka < kb ? -1 : 1
    return a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0
  })
}

export function compareTp(a: TopicPartition, b: TopicPartition): number {
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1
  return a.partition - b.partition
}

/** An empty list for every member, so members without partitions are still answered. */
export function emptyAssignment(members: readonly AssignorMember[]): Assignment {
  const out: Assignment = new Map()
  for (const m of members) out.set(m.memberId, [])
  return out
}

export function sortAssignment(a: Assignment): Assignment {
  for (const list of a.values()) list.sort(compareTp)
  return a
}
