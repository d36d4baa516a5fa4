/**
 * kafkajs 2.2.4, unmodified, against a spawned cluster of three brokers through their Kafka
 * listeners: the admin API (create, list and delete topics, describe groups), an idempotent
 * producer whose records are read back exactly once, a group of three consumers that rebalances
 * when one leaves, one group read in turn by kafkajs, kcat (-G) and the SDK from its committed
 * offsets, and `sluice groups describe` showing kafkajs's members. The broker killed mid-
 * consumption is in kafka-kafkajs-failover.e2e.test.ts (it needs a cluster of its own).
 */
import { randomUUID } from 'node:crypto'
import { connect, type SluiceClient } from '@sluice/client'
import { spawnCluster, waitFor, type SpawnedCluster } from '@sluice/testkit'
import type { Consumer, Kafka } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { assertKcat, kafkaBrokers, kafkajsClient, numbered, startKcat } from '../src/harness/kafka-clients.js'
import { assertBuilt, runSluice } from '../src/sluice-cli.js'

let cluster: SpawnedCluster
let client: SluiceClient
let kafka: Kafka

beforeAll(async () => {
  assertBuilt()
  assertKcat()
  cluster = await spawnCluster({ brokers: 3 })
  client = await connect({
    bootstrap: cluster.bootstrap,
    retry: { retries: 20, initialBackoffMs: 100, maxBackoffMs: 1000 },
  })
  kafka = kafkajsClient(kafkaBrokers(cluster), 'e2e-kafkajs')
}, 120_000)

afterAll(async () => {
  await client?.close()
  await cluster?.stop()
})

/** Creates a topic with kafkajs's admin and waits until kafkajs sees a leader for every partition. */
async function newTopic(partitions: number): Promise<string> {
  const topic = `kjs-${randomUUID().slice(0, 8)}`
  const admin = kafka.admin()
  await admin.connect()
  try {
    const created = await admin.createTopics({
      topics: [{ topic, numPartitions: partitions, replicationFactor: 3 }],
      // Leaders are awaited below; kafkajs's own wait (the admin test uses it) gives up on the
      // UNKNOWN_TOPIC_OR_PARTITION a broker answers until its metadata has the new topic.
      waitForLeaders: false,
      timeout: 30_000,
    })
    expect(created).toBe(true)
    await waitFor(
      async () => {
        const md = await admin.fetchTopicMetadata({ topics: [topic] })
        const t = md.topics[0]
        return t !== undefined && t.partitions.length === partitions && t.partitions.every((p) => p.leader > 0)
      },
      { timeoutMs: 60_000, description: `a leader for every partition of ${topic}` },
    )
  } finally {
    await admin.disconnect()
  }
  return topic
}

async function produce(topic: string, values: readonly string[]): Promise<void> {
  const producer = kafka.producer()
  await producer.connect()
  try {
    await producer.send({ topic, acks: -1, messages: values.map((value, i) => ({ key: `k${i}`, value })) })
  } finally {
    await producer.disconnect()
  }
}

/** Sum of the committed offsets of `group` on `topic`, read through the SDK over gRPC. */
async function committedTotal(group: string, topic: string): Promise<number> {
  const offsets = await client.admin().fetchOffsets(group)
  return offsets.filter((o) => o.topic === topic).reduce((n, o) => n + Number(o.offset), 0)
}

interface Member {
  readonly consumer: Consumer
  readonly values: string[]
  /** The latest assignment kafkajs reported (GROUP_JOIN), and how many joins it has reported. */
  assignment: { joins: number; partitions: number[] } | undefined
}

async function startMember(
  group: string,
  topic: string,
  clientId: string,
  options: { autoCommitInterval?: number } = {},
): Promise<Member> {
  const consumer = kafkajsClient(kafkaBrokers(cluster), clientId).consumer({
    groupId: group,
    sessionTimeout: 10_000,
    rebalanceTimeout: 20_000,
    heartbeatInterval: 500,
    maxWaitTimeInMs: 200,
  })
  const member: Member = { consumer, values: [], assignment: undefined }
  consumer.on(consumer.events.GROUP_JOIN, (e) => {
    member.assignment = {
      joins: (member.assignment?.joins ?? 0) + 1,
      partitions: [...(e.payload.memberAssignment[topic] ?? [])].sort((a, b) => a - b),
    }
  })
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  await consumer.run({
    autoCommitInterval: options.autoCommitInterval ?? 200,
    eachMessage: async ({ message }) => {
      member.values.push(message.value?.toString() ?? '')
    },
  })
  return member
}

/** Waits until the members' latest assignments are disjoint and cover partitions 0..n-1. */
async function assignmentsCover(members: readonly Member[], partitions: number, what: string): Promise<void> {
  await waitFor(
    () => {
      const all = members.flatMap((m) => m.assignment?.partitions ?? [])
      if (members.some((m) => m.assignment === undefined || m.assignment.partitions.length === 0)) return false
      const sorted = [...all].sort((a, b) => a - b)
      return sorted.length === partitions && sorted.every((p, i) => p === i)
    },
    { timeoutMs: 90_000, description: what },
  )
}

describe('kafkajs 2.2.4 against the Kafka listener', () => {
  it('admin: createTopics, listTopics, deleteTopics, describeGroups', async () => {
    const admin = kafka.admin()
    await admin.connect()
    onTestFinished(async () => await admin.disconnect())
    const topic = `kjs-admin-${randomUUID().slice(0, 8)}`
    expect(
      await admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 2 }], timeout: 30_000 }),
    ).toBe(true)
    await waitFor(async () => (await admin.listTopics()).includes(topic), {
      timeoutMs: 30_000,
      description: `listTopics to include ${topic}`,
    })
    // Creating it again is refused (TOPIC_ALREADY_EXISTS), which kafkajs reports as false.
    expect(
      await admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 2 }], timeout: 30_000 }),
    ).toBe(false)
    const described = await admin.describeGroups([`no-such-group-${randomUUID()}`])
    expect(described.groups).toHaveLength(1)
    expect(described.groups[0]!.members).toEqual([])
    await admin.deleteTopics({ topics: [topic], timeout: 30_000 })
    await waitFor(async () => !(await admin.listTopics()).includes(topic), {
      timeoutMs: 30_000,
      description: `listTopics to drop ${topic}`,
    })
  })

  it('an idempotent producer (acks -1) writes N records that are read back exactly once', async () => {
    const topic = await newTopic(3)
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 })
    await producer.connect()
    onTestFinished(async () => await producer.disconnect())
    const values = numbered('idem', 400)
    for (let i = 0; i < values.length; i += 50) {
      await producer.send({
        topic,
        acks: -1,
        messages: values.slice(i, i + 50).map((value) => ({ key: value, value })),
      })
    }
    const admin = kafka.admin()
    await admin.connect()
    onTestFinished(async () => await admin.disconnect())
    // The log holds exactly N records (no batch was appended twice) ...
    const ends = await admin.fetchTopicOffsets(topic)
    expect(ends.reduce((n, p) => n + Number(p.high), 0)).toBe(values.length)
    // ... and a consumer reads each value once.
    const reader = await startMember(`idem-${randomUUID()}`, topic, 'idem-reader')
    onTestFinished(async () => await reader.consumer.disconnect())
    await waitFor(() => reader.values.length >= values.length, {
      timeoutMs: 60_000,
      description: `the consumer to read ${values.length} records`,
    })
    expect([...reader.values].sort()).toEqual([...values].sort())
  })

  it('a group of three covers every partition and rebalances when one leaves', async () => {
    const partitions = 6
    const topic = await newTopic(partitions)
    const group = `three-${randomUUID()}`
    const members = await Promise.all(['m1', 'm2', 'm3'].map(async (id) => await startMember(group, topic, id)))
    onTestFinished(async () => {
      await Promise.all(members.map(async (m) => await m.consumer.disconnect().catch(() => {})))
    })
    await assignmentsCover(members, partitions, 'three members to share all six partitions')
    const values = numbered('before', 60)
    await produce(topic, values)
    await waitFor(() => members.flatMap((m) => m.values).length >= values.length, {
      timeoutMs: 60_000,
      description: 'the group to read the first records',
    })
    const [leaving, ...staying] = members
    const joinsBefore = staying.map((m) => m.assignment!.joins)
    await leaving!.consumer.disconnect()
    await waitFor(() => staying.every((m, i) => m.assignment!.joins > joinsBefore[i]!), {
      timeoutMs: 60_000,
      description: 'the two staying members to join again after the third left',
    })
    await assignmentsCover(staying, partitions, 'two members to share all six partitions')
    const more = numbered('after', 60)
    await produce(topic, more)
    await waitFor(() => more.every((v) => staying.some((m) => m.values.includes(v))), {
      timeoutMs: 60_000,
      description: 'the two staying members to read the later records',
    })
  })

  it('one group is read by kafkajs, then kcat -G, then the SDK, each from the committed offsets', async () => {
    const partitions = 3
    const topic = await newTopic(partitions)
    const group = `relay-${randomUUID()}`
    const first = numbered('kafkajs', 30)
    const second = numbered('kcat', 30)
    const third = numbered('sdk', 30)

    // 1. kafkajs reads the first 30 and commits them.
    await produce(topic, first)
    const kjs = await startMember(group, topic, 'relay-kafkajs')
    await waitFor(() => kjs.values.length >= first.length, { timeoutMs: 60_000, description: 'kafkajs to read 30' })
    await kjs.consumer.disconnect() // commits what it processed, then leaves the group
    await waitFor(async () => (await committedTotal(group, topic)) === 30, {
      timeoutMs: 30_000,
      description: 'kafkajs commits to reach 30',
    })
    expect([...kjs.values].sort()).toEqual(first)

    // 2. kcat -G continues from there: it sees only the next 30.
    await produce(topic, second)
    const kcat = startKcat([
      '-b',
      kafkaBrokers(cluster).join(','),
      '-G',
      group,
      // Not `-o beginning`: with -G kcat assigns that offset explicitly, over the committed one.
      '-X',
      'auto.offset.reset=earliest',
      '-f',
      '%s\\n',
      '-X',
      'auto.commit.interval.ms=200',
      topic,
    ])
    onTestFinished(async () => await kcat.stop())
    await waitFor(() => kcat.lines.length >= second.length, {
      timeoutMs: 90_000,
      description: 'kcat to read 30',
    }).catch((err: Error) => {
      throw new Error(`${err.message}\n--- kcat:\n${kcat.stderr()}`)
    })
    await waitFor(async () => (await committedTotal(group, topic)) === 60, {
      timeoutMs: 30_000,
      description: 'kcat commits to reach 60',
    })
    await kcat.stop()
    expect([...kcat.lines].sort()).toEqual(second)

    // 3. The SDK's group consumer, over gRPC, continues from kcat's commits.
    await produce(topic, third)
    const seen: string[] = []
    const consumer = client.consumer({
      groupId: group,
      autoOffsetReset: 'earliest',
      autoCommitIntervalMs: 200,
      sessionTimeoutMs: 10_000,
      heartbeatIntervalMs: 500,
      maxWaitMs: 200,
    })
    consumer.subscribe({ topics: [topic] })
    const run = consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(message.value?.toString() ?? '')
      },
    })
    onTestFinished(async () => {
      await run.stop()
      await consumer.close()
    })
    await waitFor(() => seen.length >= third.length, { timeoutMs: 60_000, description: 'the SDK to read 30' })
    await waitFor(async () => (await committedTotal(group, topic)) === 90, {
      timeoutMs: 30_000,
      description: 'SDK commits to reach 90',
    })
    expect([...seen].sort()).toEqual(third)
  })

  it("`sluice groups describe` shows kafkajs's members and their partitions", async () => {
    const partitions = 4
    const topic = await newTopic(partitions)
    const group = `describe-${randomUUID()}`
    const members = await Promise.all(['desc-a', 'desc-b'].map(async (id) => await startMember(group, topic, id)))
    onTestFinished(async () => {
      await Promise.all(members.map(async (m) => await m.consumer.disconnect().catch(() => {})))
    })
    await assignmentsCover(members, partitions, 'two kafkajs members to share four partitions')
    const view = await waitFor(
      async () => {
        const r = await runSluice(['--bootstrap', cluster.bootstrap.join(','), 'groups', 'describe', group, '--json'])
        if (r.code !== 0) throw new Error(r.stderr)
        const v = JSON.parse(r.stdout) as {
          state: string
          members: Array<{ clientId: string; assignment: Array<{ topic: string; partition: number }> }>
        }
        return v.state === 'Stable' && v.members.length === 2 ? v : undefined
      },
      { timeoutMs: 60_000, description: 'sluice groups describe to show a stable group of two' },
    )
    expect(view.members.map((m) => m.clientId).sort()).toEqual(['desc-a', 'desc-b'])
    const described = view.members.flatMap((m) => m.assignment.map((tp) => `${tp.topic}:${tp.partition}`)).sort()
    expect(described).toEqual(Array.from({ length: partitions }, (_, p) => `${topic}:${p}`))
    // kafkajs's own admin sees the same group.
    const admin = kafka.admin()
    await admin.connect()
    onTestFinished(async () => await admin.disconnect())
    const [g] = (await admin.describeGroups([group])).groups
    expect(g?.state).toBe('Stable')
    expect(g?.protocolType).toBe('consumer')
    expect(g?.members.map((m) => m.clientId).sort()).toEqual(['desc-a', 'desc-b'])
  })
})
