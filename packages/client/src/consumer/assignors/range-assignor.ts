/**
 * Kafka's RangeAssignor, per topic: partitions in numeric order, the topic's subscribers sorted
 * (instance id, else member id); each gets floor(P / N) contiguous partitions and the first
 * P % N get one more. Topics with equal partition counts are therefore co-partitioned (the same
 * partition number goes to the same member). Eager protocol.
 */
import {
  emptyAssignment,
  partitionCount,
  sortAssignment,
  sortMembers,
  type Assignment,
  type AssignmentInput,
  type Assignor,
} from './assignor-types.js'

export const rangeAssignor: Assignor = {
  name: 'range',
  rebalanceProtocol: 'eager',
  assign(input: AssignmentInput): Assignment {
    const out = emptyAssignment(input.members)
    const sorted = sortMembers(input.members)
    const topics = [...new Set(input.members.flatMap((m) => m.topics))].sort()
    for (const topic of topics) {
      const n = partitionCount(input, topic)
      if (n === undefined) continue
      const subscribers = sorted.filter((m) => m.topics.includes(topic))
      const quota = Math.floor(n / subscribers.length)
      const extra = n % subscribers.length
      let next = 0
      subscribers.forEach((m, i) => {
        const count = quota + (i < extra ? 1 : 0)
        const list = out.get(m.memberId)!
        for (let p = next; p < next + count; p++) list.push({ topic, partition: p })
        next += count
      })
    }
    return sortAssignment(out)
  },
}
