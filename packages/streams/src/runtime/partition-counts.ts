/**
 * How many partitions every topic of a plan has or must have: user topics as they exist on the
 * cluster, internal topics as the plan says (a repartition topic's own count, else the input
 * partition count of the sub-topology it is `partitionsLike`; a changelog always has the input
 * partition count of the sub-topology that owns its store, one changelog partition per task).
 * Pure: the cluster's counts come in, the required counts go out.
 */
import { changelogTopic } from '../state/store-types.js'
import { StreamsError } from '../errors.js'
import type { InternalTopicPlan, SubtopologyPlan, TopologyPlan } from './task-contract.js'

/**
 * The count each internal topic must have and each sub-topology's input partition count (its
 * task count: the largest partition count of its source topics, as Kafka does). Throws
 * StreamsError 'TOPOLOGY' for a source topic that does not exist or a count that depends on
 * itself.
 */
export function requiredPartitionCounts(
  plan: TopologyPlan,
  existing: ReadonlyMap<string, number>,
): { topics: Map<string, number>; subtopologies: Map<number, number> } {
  const internal = new Map(plan.internalTopics.map((t) => [t.name, t]))
  const byId = new Map(plan.subtopologies.map((s) => [s.id, s]))
  const topics = new Map<string, number>()
  const subtopologies = new Map<number, number>()
  const visiting = new Set<string>()

  const subCount = (s: SubtopologyPlan): number => {
    const known = subtopologies.get(s.id)
    if (known !== undefined) return known
    if (s.sourceTopics.length === 0) {
      throw new StreamsError('TOPOLOGY', `sub-topology ${s.id} has no source topic`, { details: { subtopology: s.id } })
    }
    const n = Math.max(...s.sourceTopics.map(topicCount))
    subtopologies.set(s.id, n)
    return n
  }

  const topicCount = (name: string): number => {
    const known = topics.get(name)
    if (known !== undefined) return known
    const plan = internal.get(name)
    if (plan === undefined) {
      const n = existing.get(name)
      if (n === undefined) {
        throw new StreamsError('TOPOLOGY', `source topic ${name} does not exist (create it before starting the app)`, {
          details: { topic: name },
        })
      }
      topics.set(name, n)
      return n
    }
    if (visiting.has(name)) {
      throw new StreamsError('TOPOLOGY', `the partition count of ${name} depends on itself`, {
        details: { topic: name },
      })
    }
    visiting.add(name)
    const like = likeSubtopology(plan)
    const n = plan.kind === 'repartition' && plan.partitions !== undefined ? plan.partitions : like && subCount(like)
    visiting.delete(name)
    if (n === undefined) {
      throw new StreamsError('TOPOLOGY', `internal topic ${name} has neither partitions nor a sub-topology to follow`, {
        details: { topic: name },
      })
    }
    topics.set(name, n)
    return n
  }

  /** The sub-topology whose inputs decide the count (for a changelog, the one owning the store). */
  const likeSubtopology = (t: InternalTopicPlan): SubtopologyPlan | undefined => {
    if (t.partitionsLike !== undefined) {
      const s = byId.get(t.partitionsLike)
      if (s === undefined) {
        throw new StreamsError(
          'TOPOLOGY',
          `internal topic ${t.name} follows sub-topology ${t.partitionsLike}, which does not exist`,
          {
            details: { topic: t.name, subtopology: t.partitionsLike },
          },
        )
      }
      return s
    }
    if (t.kind !== 'changelog') return undefined
    return plan.subtopologies.find((s) => s.stores.some((st) => changelogTopic(plan.applicationId, st.name) === t.name))
  }

  for (const s of plan.subtopologies) subCount(s)
  for (const t of plan.internalTopics) topicCount(t.name)
  return { topics, subtopologies }
}
