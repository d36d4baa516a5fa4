/**
 * The SDK's data path over Kafka's protocol (ConnectOptions.dataTransport, the default 'kafka')
 * against a REAL in-process cluster (metadata service and three brokers with gRPC and Kafka
 * listeners on 127.0.0.1 port 0, fresh temp dirs): idempotent acks=all produce and consume go to
 * the brokers' Kafka listeners and arrive exactly once, in order; a long poll waits for data; an
 * out-of-range fetch is the typed error it is on gRPC; 'grpc', acks=0 and brokers without a
 * Kafka listener take gRPC.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import type { Consumer, Fetcher, Producer, Sender, SluiceClient } from '@sluice/client/internal'
import { SluiceError, connect } from '@sluice/client'
import {
  createTopicWithLeaders,
  readMessages,
  startRealCluster,
  until,
  type RealCluster,
} from '../../src/client/real-cluster.js'

let cluster: RealCluster
let client: SluiceClient

beforeAll(async () => {
  cluster = await startRealCluster({
    prefix: 'sluice-kafka-data-int-',
    brokers: 3,
    defaultReplicationFactor: 3,
    connect: { retry: { retries: 10, initialBackoffMs: 50, maxBackoffMs: 500, factor: 2 } },
  })
  client = cluster.client
  await until('three live brokers', async () => (await client.admin().describeCluster()).brokers.length === 3, 15_000)
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
})

const senderOf = (p: Producer): Sender => (p as unknown as { sender: Sender }).sender
const fetcherOf = (c: Consumer): Fetcher => (c as unknown as { fetcher: Fetcher }).fetcher

async function newTopic(partitions: number): Promise<string> {
  const name = `kafka-data-${randomUUID()}`
  await createTopicWithLeaders(client, name, partitions, 3)
  return name
}

describe('the SDK data path over Kafka', () => {
  it('produces idempotently with acks=all and consumes exactly once in order, both over the Kafka listeners', async () => {
    const topic = await newTopic(3)
    const producer = client.producer({ acks: 'all', idempotent: true, lingerMs: 1, batchBytes: 16 * 1024 })
    const values = Array.from({ length: 3_000 }, (_, i) => `v-${i}`)
    const sends = []
    for (let i = 0; i < values.length; i += 100) {
      sends.push(
        producer.send({
          topic,
          records: values.slice(i, i + 100).map((value, j) => ({ key: `k-${(i + j) % 31}`, value })),
        }),
      )
    }
    const acked = (await Promise.all(sends)).flat()
    const transports = senderOf(producer).transports()
    await producer.close()
    expect(acked).toHaveLength(values.length)
    expect([...transports.values()]).toEqual(expect.arrayContaining(['kafka']))
    expect(new Set(transports.values())).toEqual(new Set(['kafka']))

    const consumer = client.consumer({ offsetReset: 'earliest', maxWaitMs: 100 })
    onTestFinished(async () => {
      await consumer.close()
    })
    await consumer.assign([{ topic }])
    const read: Array<{ partition: number; offset: bigint; value: string }> = []
    for await (const m of consumer) {
      read.push({ partition: m.partition, offset: m.offset, value: m.value!.toString() })
      if (read.length >= values.length) break
    }
    expect(new Set(fetcherOf(consumer).transports().values())).toEqual(new Set(['kafka']))
    const ackedAt = new Map(acked.map((m, i) => [`${m.partition}/${m.offset}`, values[i]]))
    for (const p of [0, 1, 2]) {
      const offsets = read.filter((m) => m.partition === p).map((m) => m.offset)
      expect(offsets).toEqual(offsets.map((_, i) => BigInt(i)))
    }
    for (const m of read) expect(m.value).toBe(ackedAt.get(`${m.partition}/${m.offset}`))
    expect(new Set(read.map((m) => m.value)).size).toBe(values.length)
  }, 60_000)

  it('answers a parked fetch (the long poll) as soon as a record arrives', async () => {
    const topic = await newTopic(1)
    const consumer = client.consumer({ offsetReset: 'earliest', maxWaitMs: 10_000 })
    onTestFinished(async () => {
      await consumer.close()
    })
    await consumer.assign([{ topic }])
    const it = consumer.messages()
    const first = it.next()
    // Let the fetch reach the broker and park there before the record exists.
    await until('a fetch in flight', () => fetcherOf(consumer).transports().size > 0)
    const producer = client.producer({ acks: 'all', lingerMs: 0 })
    const startedMs = Date.now()
    await producer.send({ topic, records: [{ value: 'wake up' }] })
    await producer.close()
    const m = await first
    expect(m.done).toBe(false)
    expect(m.value?.value?.toString()).toBe('wake up')
    // Far below the 10 s wait: the broker answered the parked fetch when the data came.
    expect(Date.now() - startedMs).toBeLessThan(5_000)
    expect(new Set(fetcherOf(consumer).transports().values())).toEqual(new Set(['kafka']))
  }, 30_000)

  it('reports an offset out of range with its code and the readable end, as on gRPC', async () => {
    const topic = await newTopic(1)
    const producer = client.producer({ acks: 'all', lingerMs: 0 })
    await producer.send({ topic, records: [{ value: 'a' }, { value: 'b' }] })
    await producer.close()
    const consumer = client.consumer({ offsetReset: 'none', maxWaitMs: 100 })
    onTestFinished(async () => {
      await consumer.close()
    })
    await consumer.assign([{ topic, partition: 0 }])
    consumer.seek({ topic, partition: 0, offset: 10n })
    const err = await consumer
      .messages()
      .next()
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    expect(err).toBeInstanceOf(SluiceError)
    expect((err as SluiceError).code).toBe('OFFSET_OUT_OF_RANGE')
    expect((err as SluiceError).details).toMatchObject({ topic, partition: 0, offset: 10n, logEndOffset: 2n })
  }, 30_000)

  it("takes gRPC when the client asks for it, and for acks=0, which Kafka's protocol never answers", async () => {
    const topic = await newTopic(1)
    const grpcClient = await connect({ bootstrap: cluster.brokers.map((b) => b.endpoint), dataTransport: 'grpc' })
    onTestFinished(async () => {
      await grpcClient.close()
    })
    const viaGrpc = grpcClient.producer({ acks: 'all', lingerMs: 0 })
    await viaGrpc.send({ topic, records: [{ value: 'over grpc' }] })
    expect(new Set(senderOf(viaGrpc).transports().values())).toEqual(new Set(['grpc']))
    await viaGrpc.close()
    const fireAndForget = client.producer({ acks: 0, lingerMs: 0 })
    await fireAndForget.send({ topic, records: [{ value: 'acks 0' }] })
    expect(new Set(senderOf(fireAndForget).transports().values())).toEqual(new Set(['grpc']))
    await fireAndForget.close()
    const read = await readMessages(grpcClient, topic, 2, { maxWaitMs: 100 })
    expect(read.map((m) => m.value?.toString()).sort()).toEqual(['acks 0', 'over grpc'])
  }, 30_000)
})

describe('brokers without a Kafka listener', () => {
  it('are reached over gRPC even when the client asks for Kafka', async () => {
    const plain = await startRealCluster({
      prefix: 'sluice-no-kafka-int-',
      brokers: 1,
      broker: { kafkaPort: undefined },
    })
    onTestFinished(async () => {
      await plain.stop()
    })
    const topic = `no-kafka-${randomUUID()}`
    await createTopicWithLeaders(plain.client, topic, 1)
    const producer = plain.client.producer({ acks: 'all', lingerMs: 0 })
    await producer.send({ topic, records: [{ value: 'still works' }] })
    expect(new Set(senderOf(producer).transports().values())).toEqual(new Set(['grpc']))
    await producer.close()
    const consumer = plain.client.consumer({ offsetReset: 'earliest', maxWaitMs: 100 })
    onTestFinished(async () => {
      await consumer.close()
    })
    await consumer.assign([{ topic }])
    const first = await consumer.messages().next()
    expect(first.value?.value?.toString()).toBe('still works')
    expect(new Set(fetcherOf(consumer).transports().values())).toEqual(new Set(['grpc']))
  }, 30_000)
})
