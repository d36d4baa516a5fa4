/**
 * The co-partitioning rule: the topics of a join (or of co-grouped stores) must have the same
 * partition count, so that the records of one key land in the same partition number of each and
 * therefore in the same task. A mismatch is a typed error naming every topic and its count; it is
 * checked before any internal topic is created.
 */
import { StreamsError } from '../errors.js'
import type { TopologyPlan } from './task-contract.js'

export function checkCopartitioning(plan: TopologyPlan, counts: ReadonlyMap<string, number>): void {
  for (const s of plan.subtopologies) {
    for (const group of s.copartitionGroups) {
      const sized = group.map((topic) => ({ topic, partitions: counts.get(topic) }))
      if (new Set(sized.map((t) => t.partitions)).size > 1) {
        const list = sized.map((t) => `${t.topic} (${t.partitions ?? 'unknown'})`).join(', ')
        throw new StreamsError(
          'TOPOLOGY',
          `topics that must be co-partitioned have different partition counts in sub-topology ${s.id}: ${list}`,
          { details: { problem: 'COPARTITIONING', subtopology: s.id, topics: sized } },
        )
      }
    }
  }
}
