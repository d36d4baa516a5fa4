/**
 * @platformatic/kafka 1.35 (the last line for Node 20) against a spawned cluster of three
 * brokers: it speaks only flexible versions of most APIs (Metadata 9+, Produce 7+, Fetch 12+,
 * CreateTopics 7), so it is the check that compact strings, compact arrays, tagged fields and
 * header v2 work with a real client. The versions it picks are taken from its own diagnostics
 * channel (every request it sends, with api key and version) and compared with what our
 * ApiVersions answer advertises: it must use the newest version both sides support.
 */
import { randomUUID } from 'node:crypto'
import {
  Admin,
  Consumer,
  connectionsApiChannel,
  MessagesStreamModes,
  Producer,
  ProduceAcks,
  stringDeserializers,
  stringSerializers,
} from '@platformatic/kafka'
import { kafka } from '@sluice/protocol'
import { spawnCluster, waitFor, type SpawnedCluster } from '@sluice/testkit'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { KAFKA_HOST, kafkaBrokers, kafkaPortOf, numbered } from '../src/harness/kafka-clients.js'
import { withKafkaConnection } from '../src/harness/kafka-wire.js'

let cluster: SpawnedCluster
/** Every (api key, version) the library sent, from its diagnostics channel. */
const sent = new Map<number, Set<number>>()
const onRequest = (message: unknown): void => {
  const m = message as { operation?: string; apiKey?: number; apiVersion?: number }
  if (m.operation !== 'send' || m.apiKey === undefined || m.apiVersion === undefined) return
  const versions = sent.get(m.apiKey) ?? new Set<number>()
  versions.add(m.apiVersion)
  sent.set(m.apiKey, versions)
}

beforeAll(async () => {
  cluster = await spawnCluster({ brokers: 3 })
  connectionsApiChannel.start.subscribe(onRequest)
}, 120_000)

afterAll(async () => {
  connectionsApiChannel.start.unsubscribe(onRequest)
  // What the library negotiated, by API name, in the test output (it explains most failures).
  const used = [...sent.entries()]
    .sort(([a], [b]) => a - b)
    .map(([key, versions]) => `${kafka.KAFKA_API_CODECS.get(key)?.name ?? key} v${[...versions].sort().join('/')}`)
  console.info(`@platformatic/kafka sent: ${used.join(', ')}`)
  await cluster?.stop()
})

/** The highest versions this library implements, for the APIs the test checks (its source). */
const LIBRARY_MAX = new Map([
  [kafka.MetadataApi.apiKey, 12],
  [kafka.ProduceApi.apiKey, 11],
  [kafka.FetchApi.apiKey, 17],
  [kafka.CreateTopicsApi.apiKey, 7],
])

/** The issue's minimum for the newest version of each that a Kafka client must be able to use. */
const AT_LEAST = new Map([
  [kafka.MetadataApi.apiKey, 12],
  [kafka.ProduceApi.apiKey, 9],
  [kafka.FetchApi.apiKey, 12],
  [kafka.CreateTopicsApi.apiKey, 7],
])

async function advertised(): Promise<Map<number, number>> {
  const broker = cluster.brokers[0]!
  return await withKafkaConnection(KAFKA_HOST, kafkaPortOf(broker), async (c) => {
    const r = await c.request(kafka.ApiVersionsApi, 3, {
      clientSoftwareName: 'sluice-e2e',
      clientSoftwareVersion: '0',
    })
    expect(r.errorCode).toBe(0)
    return new Map(r.apiKeys.map((k) => [k.apiKey, k.maxVersion]))
  })
}

describe('@platformatic/kafka 1.35 against the Kafka listener', () => {
  it('creates a topic, produces and consumes through the flexible versions', async () => {
    const brokers = kafkaBrokers(cluster)
    const topic = `plt-${randomUUID().slice(0, 8)}`
    const admin = new Admin({ clientId: 'plt-admin', bootstrapBrokers: brokers, retries: 10 })
    onTestFinished(async () => await admin.close())
    const created = await admin.createTopics({ topics: [topic], partitions: 3, replicas: 3 })
    expect(created.map((t) => t.name)).toEqual([topic])
    await waitFor(
      async () => {
        const md = await admin.metadata({ topics: [topic] })
        const t = md.topics.get(topic)
        return t !== undefined && t.partitionsCount === 3 && t.partitions.every((p) => p.leader > 0)
      },
      { timeoutMs: 60_000, description: `a leader for every partition of ${topic}` },
    )

    const producer = new Producer({
      clientId: 'plt-producer',
      bootstrapBrokers: brokers,
      serializers: stringSerializers,
      acks: ProduceAcks.ALL,
      retries: 10,
    })
    onTestFinished(async () => await producer.close())
    const values = numbered('plt', 90)
    for (let i = 0; i < values.length; i += 30) {
      await producer.send({
        messages: values.slice(i, i + 30).map((value) => ({ topic, key: value, value, headers: { source: 'plt' } })),
      })
    }

    const consumer = new Consumer({
      groupId: `plt-${randomUUID()}`,
      clientId: 'plt-consumer',
      bootstrapBrokers: brokers,
      deserializers: stringDeserializers,
      sessionTimeout: 10_000,
      heartbeatInterval: 500,
      maxWaitTime: 200,
      retries: 10,
    })
    onTestFinished(async () => await consumer.close(true))
    const stream = await consumer.consume({ topics: [topic], mode: MessagesStreamModes.EARLIEST, autocommit: 200 })
    const read: Array<{ key: string; value: string; source: string | undefined }> = []
    stream.on('data', (m) => {
      read.push({ key: m.key, value: m.value, source: m.headers.get('source') })
    })
    // The stream reports fetch failures as 'error' events; kept for the failure message.
    const streamErrors: string[] = []
    stream.on('error', (err: Error) => {
      const inner = (err as Error & { errors?: Error[] }).errors?.[0]
      streamErrors.push(`${err.message}${inner === undefined ? '' : `: ${inner.message}`}`)
    })
    await waitFor(() => read.length >= values.length, {
      timeoutMs: 60_000,
      description: `the consumer to read ${values.length} records`,
    }).catch((err: Error) => {
      throw new Error(`${err.message} (read ${read.length}); stream errors: ${streamErrors.slice(-3).join(' | ')}`)
    })
    expect(read.map((r) => r.value).sort()).toEqual(values)
    for (const r of read) {
      expect(r.key).toBe(r.value)
      expect(r.source).toBe('plt')
    }

    // The versions: the newest both sides know, and at least the issue's.
    const ours = await advertised()
    for (const [apiKey, libraryMax] of LIBRARY_MAX) {
      const expected = Math.min(libraryMax, ours.get(apiKey) ?? -1)
      expect(expected, `api ${apiKey}: newest common version`).toBeGreaterThanOrEqual(AT_LEAST.get(apiKey)!)
      expect([...(sent.get(apiKey) ?? [])], `api ${apiKey}: versions sent`).toContain(expected)
    }
  })

  it('an idempotent producer gets a producer id (InitProducerId v4) and writes each record once', async () => {
    const brokers = kafkaBrokers(cluster)
    const topic = `plt-idem-${randomUUID().slice(0, 8)}`
    const admin = new Admin({ clientId: 'plt-admin', bootstrapBrokers: brokers, retries: 10 })
    onTestFinished(async () => await admin.close())
    await admin.createTopics({ topics: [topic], partitions: 2, replicas: 3 })
    // The library sends producer id 0 and epoch 0 for a new non-transactional producer; Kafka
    // ignores both when there is no transactional id and hands out a fresh id.
    const producer = new Producer({
      clientId: 'plt-idempotent',
      bootstrapBrokers: brokers,
      serializers: stringSerializers,
      idempotent: true,
      acks: ProduceAcks.ALL,
      retries: 10,
    })
    onTestFinished(async () => await producer.close())
    const values = numbered('plt-idem', 40)
    for (let i = 0; i < values.length; i += 20) {
      await producer.send({ messages: values.slice(i, i + 20).map((value) => ({ topic, key: value, value })) })
    }
    expect(sent.get(kafka.InitProducerIdApi.apiKey)).toContain(4)
    const ends = await admin.listOffsets({
      topics: [
        {
          name: topic,
          partitions: [
            { partitionIndex: 0, timestamp: -1n },
            { partitionIndex: 1, timestamp: -1n },
          ],
        },
      ],
    })
    const total = ends.flatMap((t) => t.partitions).reduce((n, p) => n + Number(p.offset), 0)
    expect(total).toBe(values.length)
  })
})
