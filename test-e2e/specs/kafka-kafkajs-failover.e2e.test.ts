/**
 * kafkajs 2.2.4 through a broker crash: a group of two kafkajs consumers reads a replicated
 * topic while a kafkajs producer keeps writing; one broker (the leader of partition 0) is killed
 * with SIGKILL mid-consumption. The group must carry on: every record is delivered at least once,
 * the committed offsets (sampled from the coordinator through the SDK the whole time) never go
 * backwards, and at the end they reach the log end of every partition. It has a cluster of its
 * own because it kills one of its brokers.
 */
import { randomUUID } from 'node:crypto'
import { connect, type SluiceClient } from '@sluice/client'
import { spawnCluster, waitFor, type SpawnedCluster } from '@sluice/testkit'
import type { Consumer, Kafka, Producer } from 'kafkajs'
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest'
import { kafkaBrokers, kafkajsClient, numbered } from '../src/harness/kafka-clients.js'

let cluster: SpawnedCluster
let client: SluiceClient
let kafka: Kafka

beforeAll(async () => {
  cluster = await spawnCluster({ brokers: 3 })
  client = await connect({
    bootstrap: cluster.bootstrap,
    retry: { retries: 30, initialBackoffMs: 100, maxBackoffMs: 1000 },
  })
  kafka = kafkajsClient(kafkaBrokers(cluster), 'e2e-failover')
}, 120_000)

afterAll(async () => {
  await client?.close()
  await cluster?.stop()
})

/** Samples the group's committed offsets until stopped and records any that went backwards. */
function watchCommits(group: string, topic: string) {
  const latest = new Map<number, bigint>()
  const backwards: string[] = []
  let stopped = false
  const loop = (async () => {
    while (!stopped) {
      try {
        for (const o of await client.admin().fetchOffsets(group)) {
          if (o.topic !== topic) continue
          const before = latest.get(o.partition)
          if (before !== undefined && o.offset < before)
            backwards.push(`partition ${o.partition}: ${before} -> ${o.offset}`)
          if (before === undefined || o.offset > before) latest.set(o.partition, o.offset)
        }
      } catch {
        // The coordinator may be briefly unreachable while the cluster reacts; sample again.
      }
      await new Promise((r) => setTimeout(r, 100))
    }
  })()
  return {
    latest,
    backwards,
    total: () => [...latest.values()].reduce((n, o) => n + Number(o), 0),
    stop: async () => {
      stopped = true
      await loop
    },
  }
}

it('a broker killed mid-consumption: the group carries on, no committed offset is lost', async () => {
  const partitions = 6
  const topic = `failover-${randomUUID().slice(0, 8)}`
  const group = `failover-${randomUUID()}`
  const admin = kafka.admin()
  await admin.connect()
  onTestFinished(async () => await admin.disconnect().catch(() => {}))
  // Leaders are awaited below, not by kafkajs: its own wait gives up on UNKNOWN_TOPIC_OR_PARTITION,
  // which a broker whose metadata has not caught up with the new topic answers (kafka-kafkajs covers it).
  await admin.createTopics({
    topics: [{ topic, numPartitions: partitions, replicationFactor: 3 }],
    waitForLeaders: false,
    timeout: 30_000,
  })
  const leaderOf0 = await waitFor(
    async () => {
      const t = (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]
      if (t === undefined || t.partitions.length !== partitions || t.partitions.some((p) => p.leader <= 0)) return
      return t.partitions.find((p) => p.partitionId === 0)!.leader
    },
    { timeoutMs: 60_000, description: `a leader for every partition of ${topic}` },
  )

  const producer: Producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 })
  await producer.connect()
  onTestFinished(async () => await producer.disconnect().catch(() => {}))
  const send = async (values: readonly string[]): Promise<void> => {
    for (let i = 0; i < values.length; i += 20) {
      await producer.send({
        topic,
        acks: -1,
        messages: values.slice(i, i + 20).map((value) => ({ key: value, value })),
      })
    }
  }

  const seen = new Set<string>()
  const consumers: Consumer[] = []
  for (const id of ['fo-a', 'fo-b']) {
    const consumer = kafkajsClient(kafkaBrokers(cluster), id).consumer({
      groupId: group,
      sessionTimeout: 10_000,
      rebalanceTimeout: 20_000,
      heartbeatInterval: 500,
      maxWaitTimeInMs: 200,
      maxBytesPerPartition: 2048, // small fetches, so consumption takes many rounds
    })
    consumers.push(consumer)
    await consumer.connect()
    await consumer.subscribe({ topic, fromBeginning: true })
    await consumer.run({
      autoCommitInterval: 100,
      eachMessage: async ({ message }) => {
        seen.add(message.value?.toString() ?? '')
        // Slow enough that the kill lands while the group is still reading.
        await new Promise((r) => setTimeout(r, 2))
      },
    })
  }
  onTestFinished(async () => {
    await Promise.all(consumers.map(async (c) => await c.disconnect().catch(() => {})))
  })
  const commits = watchCommits(group, topic)
  onTestFinished(async () => await commits.stop())

  const before = numbered('before', 600)
  await send(before)
  await waitFor(() => commits.total() >= 100, { timeoutMs: 60_000, description: 'the group to commit 100 offsets' })
  expect(commits.total()).toBeLessThan(before.length) // mid-consumption, not after it
  const committedAtKill = new Map(commits.latest)

  const victim = cluster.brokers[leaderOf0 - 1]!
  victim.kill('SIGKILL')
  await victim.exited

  const after = numbered('after', 300)
  await send(after)
  const all = [...before, ...after]
  await waitFor(() => all.every((v) => seen.has(v)), {
    timeoutMs: 120_000,
    description: 'every record to be delivered at least once after the kill',
  })
  await waitFor(() => commits.total() >= all.length, {
    timeoutMs: 60_000,
    description: `the committed offsets to reach the log end (${all.length})`,
  })
  await commits.stop()
  expect(commits.backwards).toEqual([])
  for (const [partition, offset] of committedAtKill) {
    expect(commits.latest.get(partition)! >= offset).toBe(true)
  }
  expect(commits.total()).toBe(all.length)
})
