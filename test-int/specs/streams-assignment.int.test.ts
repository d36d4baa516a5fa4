/**
 * StreamsPartitionAssignor in a REAL in-process cluster's consumer group (the group-consumer
 * specs' cluster, test-int/src/client/group-cluster.ts): six tasks of two sub-topologies over two
 * instances, a third joining (tasks move only to it, two of them), then one leaving (its tasks
 * go to the others); each instance's consumer reads exactly its active tasks' partitions, every
 * task has a standby on another instance, and, with the cooperative protocol, no partition is
 * ever read by two members at once.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { GroupConsumer, TopicPartition } from '@sluice/client'
import type { TaskId } from '@sluice/streams'
import { StreamsPartitionAssignor, type StreamsTaskAssignment } from '@sluice/streams/internal'
import { FAST, client, events, newTopic, until, useGroupCluster } from '../src/client/group-cluster.js'

useGroupCluster()

const key = (t: TaskId): string => `${t.subtopology}_${t.partition}`
const tpKey = (tp: TopicPartition): string => `${tp.topic}/${tp.partition}`

interface Instance {
  id: string
  consumer: GroupConsumer
  last: StreamsTaskAssignment | undefined
  stop: () => Promise<void>
}

describe.each(['eager', 'cooperative'] as const)('streams task assignment (%s)', (protocol) => {
  it("places six tasks on two instances, moves two to a third, and gives a leaving one's tasks back", async () => {
    const words = await newTopic(3)
    const repartition = await newTopic(3)
    const subtopologies = [
      { id: 0, sourceTopics: [words] },
      { id: 1, sourceTopics: [repartition] },
    ]
    const groupId = `app-${randomUUID()}`
    /** Partitions read by more than one member at once (revocation before handover keeps this empty). */
    const doubleReads: string[] = []
    const readers = new Map<string, string>()

    function start(id: string): Instance {
      let active: TaskId[] = []
      let standby: TaskId[] = []
      const self: Instance = { id, last: undefined } as Instance
      const assignor = new StreamsPartitionAssignor({
        subtopologies,
        numStandbyReplicas: 1,
        rebalanceProtocol: protocol,
        // As the runtime does: the last generation's tasks are kept across an eager revocation.
        localState: () => ({
          instanceId: id,
          endpoint: `${id}.local:7070`,
          activeTasks: active,
          standbyTasks: standby.map((task) => ({ task, lag: 0 })),
        }),
        onTasks: (a) => {
          self.last = a
          active = [...a.activeTasks]
          standby = [...a.standbyTasks]
          events.push(
            `${id} gen ${a.generationId} active ${active.map(key).join(',')} standby ${standby.map(key).join(',')}`,
          )
        },
      })
      const consumer = client.consumer({
        ...FAST,
        groupId,
        assignors: [assignor],
        rebalanceListener: {
          onPartitionsAssigned: (tps) => {
            for (const tp of tps) {
              const other = readers.get(tpKey(tp))
              if (other !== undefined && other !== id) doubleReads.push(`${tpKey(tp)} ${other}+${id}`)
              readers.set(tpKey(tp), id)
            }
          },
          onPartitionsRevoked: (tps) => {
            for (const tp of tps) if (readers.get(tpKey(tp)) === id) readers.delete(tpKey(tp))
          },
        },
      })
      consumer.subscribe({ topics: [words, repartition] })
      const handle = consumer.run({ eachMessage: () => {} })
      let stopped = false
      self.consumer = consumer
      self.stop = async () => {
        if (stopped) return
        stopped = true
        await handle.stop()
        await consumer.close()
      }
      onTestFinished(self.stop)
      return self
    }

    /** All instances in one generation, each reading exactly its active tasks' partitions. */
    const settled = (instances: Instance[], perInstance: number) => () => {
      const gens = new Set(instances.map((i) => i.consumer.groupMetadata().generationId))
      return (
        gens.size === 1 &&
        instances.every(
          (i) =>
            i.last !== undefined &&
            i.last.generationId === [...gens][0] &&
            i.last.activeTasks.length === perInstance &&
            i.consumer.assignment().map(tpKey).sort().join() === i.last.partitions.map(tpKey).sort().join(),
        )
      )
    }
    const checkPlacement = (instances: Instance[]): void => {
      const active = instances.flatMap((i) => i.last!.activeTasks.map(key))
      expect(active.sort()).toEqual(['0_0', '0_1', '0_2', '1_0', '1_1', '1_2'])
      for (const i of instances) {
        for (const t of i.last!.standbyTasks) expect(i.last!.activeTasks.map(key)).not.toContain(key(t))
        // Every instance routes every active partition to its owner's endpoint.
        for (const o of instances)
          expect(i.last!.partitionsByEndpoint.get(`${o.id}.local:7070`)!.map(tpKey).sort()).toEqual(
            o.consumer.assignment().map(tpKey).sort(),
          )
      }
      expect(instances.flatMap((i) => i.last!.standbyTasks.map(key)).sort()).toEqual(active.sort())
    }

    const a = start('a')
    const b = start('b')
    await until('a and b run three tasks each', settled([a, b], 3))
    checkPlacement([a, b])
    const before = new Map([a, b].map((i) => [i.id, new Set(i.last!.activeTasks.map(key))]))

    const c = start('c')
    await until('a, b and c run two tasks each', settled([a, b, c], 2))
    checkPlacement([a, b, c])
    for (const i of [a, b]) for (const t of i.last!.activeTasks) expect(before.get(i.id)!.has(key(t))).toBe(true)
    const ofC = c.last!.activeTasks.map(key)

    await c.stop()
    await until('a and b run three tasks each again', settled([a, b], 3))
    checkPlacement([a, b])
    expect([...a.last!.activeTasks, ...b.last!.activeTasks].map(key)).toEqual(expect.arrayContaining(ofC))
    expect(doubleReads).toEqual([])
  })
})
