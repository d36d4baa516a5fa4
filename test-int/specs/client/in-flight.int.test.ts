/**
 * Batches in flight per partition without idempotence (acks=1 and acks=0), against a REAL
 * in-process cluster (metadata service + one broker on 127.0.0.1 port 0, fresh temp dir): with
 * maxInFlight 5 several Produce requests of one partition are outstanding at once, with
 * maxInFlight 1 never more than one, and either way every record lands once, in send order
 * (no retries happen on a stable cluster, so order holds).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConsumerMessage, Producer, Sender, SluiceClient } from '@sluice/client/internal'
import {
  createTopicWithLeaders,
  readMessages,
  startRealCluster,
  type RealCluster,
} from '../../src/client/real-cluster.js'

let cluster: RealCluster
let client: SluiceClient

beforeAll(async () => {
  cluster = await startRealCluster({ prefix: 'sluice-inflight-int-' })
  client = cluster.client
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
})

/** Sends `n` records in one call while sampling, every event-loop turn, the batches in flight. */
async function sendSampling(producer: Producer, topic: string, n: number): Promise<number> {
  const sender = (producer as unknown as { sender: Sender }).sender
  let most = 0
  let sending = true
  const sample = (): void => {
    most = Math.max(most, sender.inFlightOf(topic, 0))
    if (sending) setImmediate(sample)
  }
  setImmediate(sample)
  const records = Array.from({ length: n }, (_, i) => ({ value: `${String(i).padStart(8, '0')}${'x'.repeat(92)}` }))
  try {
    await producer.send({ topic, records })
    await producer.flush()
  } finally {
    sending = false
  }
  return most
}

function expectInOrder(read: ConsumerMessage[], n: number): void {
  expect(read).toHaveLength(n)
  for (let i = 0; i < n; i++) {
    if (read[i]!.offset !== BigInt(i) || read[i]!.value!.subarray(0, 8).toString() !== String(i).padStart(8, '0')) {
      throw new Error(`record ${i}: offset ${read[i]!.offset}, value ${read[i]!.value!.subarray(0, 8).toString()}`)
    }
  }
}

describe('batches in flight per partition without idempotence', () => {
  const N = 20_000 // 2 MB in ~2 KiB batches: about a thousand batches for one partition

  it('acks=1 with maxInFlight 5 keeps several requests of one partition outstanding, in order', async () => {
    const topic = 'acks1-five'
    await createTopicWithLeaders(client, topic, 1)
    const producer = client.producer({ acks: 1, maxInFlight: 5, batchBytes: 2048, lingerMs: 0 })
    const most = await sendSampling(producer, topic, N)
    expect(most).toBeGreaterThan(1)
    expect(most).toBeLessThanOrEqual(5)
    expectInOrder(await readMessages(client, topic, N), N)
  }, 60_000)

  it('acks=1 with maxInFlight 1 never has more than one batch of a partition out', async () => {
    const topic = 'acks1-one'
    await createTopicWithLeaders(client, topic, 1)
    const producer = client.producer({ acks: 1, maxInFlight: 1, batchBytes: 2048, lingerMs: 0 })
    const most = await sendSampling(producer, topic, N / 4)
    expect(most).toBe(1)
    expectInOrder(await readMessages(client, topic, N / 4), N / 4)
  }, 60_000)

  it('acks=0 with maxInFlight 5: every record arrives once, in order', async () => {
    const topic = 'acks0-five'
    await createTopicWithLeaders(client, topic, 1)
    const producer = client.producer({ acks: 0, maxInFlight: 5, batchBytes: 2048, lingerMs: 0 })
    const records = Array.from({ length: N }, (_, i) => ({ value: `${String(i).padStart(8, '0')}${'x'.repeat(92)}` }))
    const meta = await producer.send({ topic, records })
    expect(meta.every((m) => m.offset === -1n)).toBe(true)
    expectInOrder(await readMessages(client, topic, N), N)
  }, 60_000)
})
