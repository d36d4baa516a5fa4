/**
 * Kafka's RoundRobinAssignor: every subscribed topic sorted by name, its partitions in order,
 * all concatenated; members sorted (instance id, else member id) in a circle; each partition goes
 * to the next member in the circle that subscribes to its topic. Eager protocol.
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

export const roundRobinAssignor: Assignor = {
  name: 'roundrobin',
  rebalanceProtocol: 'eager',
  assign(input: AssignmentInput): Assignment {
    const out = emptyAssignment(input.members)
    const circle = sortMembers(input.members)
    if (circle.length === 0) return out
    const topics = [...new Set(input.members.flatMap((m) => m.topics))].sort()
    let at = 0
    for (const topic of topics) {
      const n = partitionCount(input, topic)
      if (n === undefined) continue
      for (let partition = 0; partition < n; partition++) {
        // Bounded: at least one member subscribes to this topic (it came from someone's list).
        for (let step = 0; step < circle.length; step++) {
          const m = circle[at % circle.length]!
          at++
          if (m.topics.includes(topic)) {
            out.get(m.memberId)!.push({ topic, partition })
            break
          }
        }
      }
    }
    return sortAssignment(out)
  },
}
