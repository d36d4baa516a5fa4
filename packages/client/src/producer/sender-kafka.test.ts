import { afterEach, describe, expect, it } from 'vitest'
import { SluiceError, errorId, kafka } from '@sluice/protocol'
import { startTinyKafkaBroker, type TinyKafkaBroker, type TinyKafkaRequest } from '../__fixtures__/tiny-kafka-broker.js'
import { silentLogger } from '../logger.js'
import type { ConnectionPool } from '../network/connection-pool.js'
import type { BrokerNode, MetadataCache } from '../network/metadata-cache.js'
import { RecordAccumulator } from './accumulator.js'
import { Sender } from './sender.js'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** A sender whose only broker (id 1, leader of t/0) has its Kafka listener at `port`. */
function kafkaSender(port: number): { acc: RecordAccumulator; sender: Sender; refreshes: () => number } {
  const acc = new RecordAccumulator({ batchBytes: 1 << 20, lingerMs: 0 })
  const node: BrokerNode = {
    brokerId: 1,
    host: '127.0.0.1',
    port: 1,
    rack: '',
    endpoint: '127.0.0.1:1',
    kafkaEndpoint: { host: '127.0.0.1', port },
  }
  let refreshes = 0
  const cache = {
    brokers: new Map([[1, node]]),
    leaderOf: () => node,
    refresh: async () => {},
    requestRefresh: () => {
      refreshes++
    },
  } as unknown as MetadataCache
  // No gRPC: a request that took gRPC would throw here.
  const pool = {
    brokerClient: () => {
      throw new Error('the Kafka transport must not open gRPC')
    },
  } as unknown as ConnectionPool
  const sender = new Sender(
    acc,
    cache,
    pool,
    {
      acks: -1,
      compression: 'none',
      maxInFlight: 1,
      deliveryTimeoutMs: 10_000,
      requestTimeoutMs: 5_000,
      clientId: 'sender-kafka-test',
      retry: { retries: 5, initialBackoffMs: 5, maxBackoffMs: 20, factor: 2 },
      dataTransport: 'kafka',
    },
    silentLogger,
  )
  cleanups.push(() => sender.close(new SluiceError('CLIENT_CLOSED', 'the test is over')))
  return { acc, sender, refreshes: () => refreshes }
}

async function broker(onRequest: (req: TinyKafkaRequest) => void): Promise<TinyKafkaBroker> {
  const b = await startTinyKafkaBroker(onRequest)
  cleanups.push(() => b.stop())
  return b
}

/** Answers partition 0 of the request's one topic. */
const answer = (req: TinyKafkaRequest, errorCode: number, baseOffset: bigint): void => {
  const name = (req.body as kafka.ProduceRequest).topicData[0]!.name
  req.answer({
    responses: [{ name, partitionResponses: [{ index: 0, errorCode, baseOffset }] }],
  } satisfies kafka.ProduceResponseInput)
}

describe('Sender over the Kafka transport', () => {
  it('retries a batch whose connection broke in flight, on a new connection, and completes it', async () => {
    const b = await broker((req) => {
      if (req.connection === 0) req.breakConnection()
      else answer(req, 0, 41n)
    })
    const { acc, sender, refreshes } = kafkaSender(b.port)
    const batch = acc.add('t', 0, { value: Buffer.from('v') }, 10)
    sender.wakeup()
    await expect(batch.done).resolves.toMatchObject({ baseOffset: 41n })
    expect(b.connections).toBe(2)
    expect(b.requests.map((r) => [r.apiKey, r.apiVersion])).toEqual([
      [kafka.ProduceApi.apiKey, 9],
      [kafka.ProduceApi.apiKey, 9],
    ])
    // NETWORK_EXCEPTION is stale metadata: the sender asked for a refresh before retrying.
    expect(refreshes()).toBeGreaterThanOrEqual(1)
  })

  it('retries a retriable partition error (NOT_LEADER_OR_FOLLOWER) and fails a final one at once', async () => {
    let n = 0
    const b = await broker((req) => {
      const body = req.body as kafka.ProduceRequest
      const topic = body.topicData[0]!.name
      if (topic === 't') answer(req, n++ === 0 ? errorId('NOT_LEADER_OR_FOLLOWER') : 0, 7n)
      else answer(req, errorId('MESSAGE_TOO_LARGE'), -1n)
    })
    const { acc, sender } = kafkaSender(b.port)
    const retried = acc.add('t', 0, { value: Buffer.from('v') }, 10)
    sender.wakeup()
    await expect(retried.done).resolves.toMatchObject({ baseOffset: 7n })
    expect(n).toBe(2)
    const final = acc.add('too-big', 0, { value: Buffer.from('v') }, 10)
    sender.wakeup()
    const err = await final.done.then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(SluiceError)
    expect((err as SluiceError).code).toBe('MESSAGE_TOO_LARGE')
  })
})
