/**
 * From the partitions the group gives this member to the tasks it runs. A task is one
 * sub-topology over one partition number: partition p of every source topic of sub-topology s
 * belongs to task s_p, so a sub-topology that reads several (co-partitioned) topics gets one task
 * per partition number, which sees the records of one key from all of them.
 *
 * The group uses the SDK's 'range' assignor until the streams assignor is in (it will place
 * whole tasks, sticky to where their state is): range hands out every topic's partitions in the
 * same order over the same sorted members, so topics with equal partition counts give partition
 * p to the same member, which keeps every task's partitions together on one instance.
 * Cooperative-sticky would not: it balances each partition on its own and may split a task.
 */
import type { TopicPartition } from '@sluice/client'
import { taskIdString, type TaskId } from '../api/task-id.js'
import { StreamsError } from '../errors.js'
import type { TopologyPlan } from './task-contract.js'

export interface AssignedTask {
  readonly id: TaskId
  readonly key: string
  readonly partitions: TopicPartition[]
}

/** Which sub-topology reads each source topic (a topic read by two would be one task in two places). */
export function sourceTopicOwners(plan: TopologyPlan): Map<string, number> {
  const owners = new Map<string, number>()
  for (const s of plan.subtopologies) {
    for (const topic of s.sourceTopics) {
      const other = owners.get(topic)
      if (other !== undefined && other !== s.id) {
        throw new StreamsError('TOPOLOGY', `topic ${topic} is read by sub-topologies ${other} and ${s.id}`, {
          details: { topic, subtopologies: [other, s.id] },
        })
      }
      owners.set(topic, s.id)
    }
  }
  return owners
}

/** The tasks of these partitions, by their `<subtopology>_<partition>` key, in key order. */
export function groupIntoTasks(
  partitions: readonly TopicPartition[],
  owners: ReadonlyMap<string, number>,
): Map<string, AssignedTask> {
  const tasks = new Map<string, AssignedTask>()
  for (const tp of partitions) {
    const subtopology = owners.get(tp.topic)
    if (subtopology === undefined) continue
    const id = { subtopology, partition: tp.partition }
    const key = taskIdString(id)
    let t = tasks.get(key)
    if (t === undefined) {
      t = { id, key, partitions: [] }
      tasks.set(key, t)
    }
    t.partitions.push({ topic: tp.topic, partition: tp.partition })
  }
  return new Map([...tasks].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}
