/**
 * The SDK against a REAL in-process cluster: one metadata service and three brokers on
 * 127.0.0.1 port 0, data in fresh temp dirs. Covers admin, produce with every codec and acks
 * 1 / all, consumption in both styles (exactly once, in order per partition), seeks, long poll
 * and typed errors.
 */
import { randomUUID } from 'node:crypto'
import type { BrokerHandle } from '@sluice/broker'
import type { MetadataServerHandle } from '@sluice/metadata'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  SluiceError,
  connect,
  type CompressionType,
  type Consumer,
  type ConsumerMessage,
  type RecordMetadata,
  type SluiceClient,
} from '@sluice/client'
import { createTopicWithLeaders, startRealCluster, until, type RealCluster } from '../../src/client/real-cluster.js'

let cluster: RealCluster
let metadata: MetadataServerHandle
let brokers: BrokerHandle[] = []
let client: SluiceClient

beforeAll(async () => {
  cluster = await startRealCluster({
    prefix: 'sluice-client-int-',
    brokers: 3,
    defaultReplicationFactor: 2,
    connect: { retry: { retries: 10, initialBackoffMs: 50, maxBackoffMs: 500, factor: 2 } },
  })
  metadata = cluster.metadata
  brokers = cluster.brokers
  client = cluster.client
  await until('three live brokers', async () => (await client.admin().describeCluster()).brokers.length === 3, 15_000)
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
})

async function newTopic(partitions: number): Promise<string> {
  const name = `t-${randomUUID()}`
  await createTopicWithLeaders(client, name, partitions, 2)
  return name
}

/** Reads until `n` messages arrived, by iterator or by run(). */
async function consumeN(consumer: Consumer, n: number, style: 'iterator' | 'run'): Promise<ConsumerMessage[]> {
  const out: ConsumerMessage[] = []
  if (style === 'iterator') {
    for await (const m of consumer) {
      out.push(m)
      if (out.length >= n) break
    }
    return out
  }
  let reached!: () => void
  const all = new Promise<void>((resolve) => {
    reached = resolve
  })
  const handle = consumer.run({
    eachBatch: ({ batch }) => {
      out.push(...batch.messages)
      if (out.length >= n) reached()
    },
  })
  await Promise.race([all, handle.done])
  await handle.stop()
  return out
}

function checkExactlyOnceInOrder(produced: RecordMetadata[], values: string[], consumed: ConsumerMessage[]): void {
  expect(consumed).toHaveLength(values.length)
  const expected = new Map<string, string>() // "partition/offset" -> value
  for (const [i, m] of produced.entries()) expected.set(`${m.partition}/${m.offset}`, values[i]!)
  const seen = new Set<string>()
  const lastOffset = new Map<number, bigint>()
  for (const m of consumed) {
    const id = `${m.partition}/${m.offset}`
    expect(seen.has(id)).toBe(false)
    seen.add(id)
    expect(m.value!.toString()).toBe(expected.get(id))
    const prev = lastOffset.get(m.partition)
    if (prev !== undefined) expect(m.offset).toBeGreaterThan(prev)
    lastOffset.set(m.partition, m.offset)
  }
  expect(seen.size).toBe(values.length)
}

describe('admin', () => {
  it('creates, describes, lists, alters, grows and deletes topics', async () => {
    const admin = client.admin()
    const name = `admin-${randomUUID()}`
    const [created] = await admin.createTopics([
      { name, numPartitions: 3, replicationFactor: 2, configs: { 'retention.ms': '60000' } },
    ])
    expect(created).toMatchObject({ name, numPartitions: 3, replicationFactor: 2 })
    expect(await admin.listTopics()).toContain(name)
    await until('leaders', async () => (await admin.describeTopics([name]))[0]!.partitions.every((p) => p.leader >= 0))
    const [d] = await admin.describeTopics([name])
    expect(d!.partitions.map((p) => p.partition)).toEqual([0, 1, 2])
    for (const p of d!.partitions) {
      expect(p.replicas).toHaveLength(2)
      expect(p.replicas).toContain(p.leader)
      expect(p.isr.length).toBeGreaterThan(0)
    }
    expect(d!.configs.find((c) => c.name === 'retention.ms')).toMatchObject({ value: '60000', source: 'topic' })
    await admin.alterConfigs([{ topic: name, configs: { 'retention.ms': null, 'cleanup.policy': 'compact' } }])
    const [after] = await admin.describeTopics([name])
    expect(after!.configs.find((c) => c.name === 'cleanup.policy')).toMatchObject({ value: 'compact', source: 'topic' })
    expect(after!.configs.find((c) => c.name === 'retention.ms')?.source).toBe('default')
    await admin.createPartitions([{ name, count: 5 }])
    await until('5 partitions', async () => (await admin.describeTopics([name]))[0]!.partitions.length === 5)
    await admin.deleteTopics([name])
    await until('deleted', async () => !(await admin.listTopics()).includes(name))
  })

  it('throws typed errors listing each failed topic', async () => {
    const admin = client.admin()
    const bad = (await admin.createTopics([{ name: 'bad topic!' }]).catch((e: unknown) => e)) as SluiceError
    expect(bad).toBeInstanceOf(SluiceError)
    expect(bad.code).toBe('INVALID_TOPIC_EXCEPTION')
    const name = await newTopic(1)
    const dup = (await admin.createTopics([{ name }, { name: 'also bad/' }]).catch((e: unknown) => e)) as SluiceError
    expect(dup.code).toBe('TOPIC_ALREADY_EXISTS')
    expect((dup.details.errors as Array<{ topic: string; code: string }>).map((e) => e.code).sort()).toEqual([
      'INVALID_TOPIC_EXCEPTION',
      'TOPIC_ALREADY_EXISTS',
    ])
    const missing = (await admin.describeTopics([`missing-${randomUUID()}`]).catch((e: unknown) => e)) as SluiceError
    expect(missing.code).toBe('UNKNOWN_TOPIC_OR_PARTITION')
    const cluster = await admin.describeCluster()
    expect(cluster.brokers.map((b) => b.brokerId)).toEqual([1, 2, 3])
    expect(cluster.metadataEndpoints).toContain(metadata.endpoint)
  })
})

const CODECS: CompressionType[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd']

describe('produce and consume', () => {
  it.each(CODECS)(
    '10,000 keyed records with %s, acks 1 and all, read back exactly once in order, both styles',
    async (codec) => {
      const topic = await newTopic(6)
      const values: string[] = []
      const produced: RecordMetadata[] = []
      for (const acks of [1, 'all'] as const) {
        const producer = client.producer({ acks, compression: codec, lingerMs: 5, batchBytes: 64 * 1024 })
        const sends: Array<Promise<RecordMetadata[]>> = []
        for (let chunk = 0; chunk < 10; chunk++) {
          const records = Array.from({ length: 500 }, (_, i) => {
            const n = values.length
            const value = `${acks}-${chunk}-${i}-${'x'.repeat(n % 50)}`
            values.push(value)
            return { key: `key-${n % 997}`, value, headers: { n: String(n) } }
          })
          sends.push(producer.send({ topic, records }))
        }
        for (const s of sends) produced.push(...(await s))
        await producer.close()
      }
      expect(produced).toHaveLength(10_000)
      // Keys land on partitionForKey(key): the same key always on the same partition.
      const partitionOfKey = new Map<number, number>()
      produced.forEach((m, n) => {
        const k = n % 997
        expect(partitionOfKey.get(k) ?? m.partition).toBe(m.partition)
        partitionOfKey.set(k, m.partition)
      })
      for (const style of ['iterator', 'run'] as const) {
        const consumer = client.consumer({ maxWaitMs: 100 })
        await consumer.assign([{ topic }])
        for (let p = 0; p < 6; p++) consumer.seek({ topic, partition: p, offset: 'beginning' })
        const consumed = await consumeN(consumer, 10_000, style)
        await consumer.close()
        checkExactlyOnceInOrder(produced, values, consumed)
        expect(consumed.find((m) => m.offset === 0n)!.headers[0]!.key).toBe('n')
      }
    },
    120_000,
  )
})

describe('consumer positions', () => {
  it('seeks by offset, beginning, end and timestamp', async () => {
    const topic = await newTopic(1)
    const producer = client.producer({ lingerMs: 0 })
    await producer.send({
      topic,
      records: [1000, 2000, 3000, 4000].map((ts) => ({ value: `at-${ts}`, timestamp: ts })),
    })
    const consumer = client.consumer({ maxWaitMs: 100 })
    await consumer.assign([{ topic, partition: 0 }])
    const tp = { topic, partition: 0 }
    expect(await consumer.position(tp)).toBe(4n) // starts at the end by default
    const it = consumer.messages()
    consumer.seek({ ...tp, offset: 'beginning' })
    expect((await it.next()).value).toMatchObject({ offset: 0n, timestamp: 1000n })
    consumer.seek({ ...tp, offset: 2n })
    expect((await it.next()).value).toMatchObject({ offset: 2n })
    consumer.seek({ ...tp, offset: { timestamp: 2500 } })
    // The broker may answer with the start of the batch holding the match; the consumer skips
    // the older records in front of it.
    expect((await it.next()).value).toMatchObject({ offset: 2n, timestamp: 3000n })
    consumer.seek({ ...tp, offset: { timestamp: 99_999 } }) // past every record: the end
    expect(await consumer.position(tp)).toBe(4n)
    consumer.seek({ ...tp, offset: 'end' })
    expect(await consumer.position(tp)).toBe(4n)
    // Long poll: waiting at the end, a record produced later arrives.
    const next = it.next()
    await producer.send({ topic, records: [{ value: 'later' }] })
    expect((await next).value).toMatchObject({ offset: 4n })
    await consumer.close()
  })

  it('surfaces OFFSET_OUT_OF_RANGE with the log range', async () => {
    const topic = await newTopic(1)
    await client.producer({ lingerMs: 0 }).send({ topic, records: [{ value: 'a' }] })
    const consumer = client.consumer({ maxWaitMs: 100 })
    await consumer.assign([{ topic }])
    consumer.seek({ topic, partition: 0, offset: 50n })
    const err = (await consumer
      .messages()
      .next()
      .catch((e: unknown) => e)) as SluiceError
    expect(err.code).toBe('OFFSET_OUT_OF_RANGE')
    expect(err.details).toMatchObject({ offset: 50n, logEndOffset: 1n })
    await consumer.close()
  })
})

describe('typed errors', () => {
  it('unknown topic after retries: producer and consumer', async () => {
    const c = await connect({
      bootstrap: [brokers[0]!.endpoint],
      retry: { retries: 2, initialBackoffMs: 10, maxBackoffMs: 20, factor: 2 },
    })
    try {
      const topic = `missing-${randomUUID()}`
      const err = (await c
        .producer()
        .send({ topic, records: [{ value: 'x' }] })
        .catch((e: unknown) => e)) as SluiceError
      expect(err).toBeInstanceOf(SluiceError)
      expect(err.code).toBe('UNKNOWN_TOPIC_OR_PARTITION')
      expect(err.details.attempts).toHaveLength(3)
      await expect(c.consumer().assign([{ topic }])).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' })
    } finally {
      await c.close()
    }
    expect(await c.closed()).toBeUndefined()
  })
})
