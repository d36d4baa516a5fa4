/**
 * Batches in flight per partition without idempotence (acks=1 and acks=0), against a REAL
 * in-process cluster (metadata service + one broker on 127.0.0.1 port 0, fresh temp dir): with
 * maxInFlight 5 several Produce requests of one partition are outstanding at once, with
 * maxInFlight 1 never more than one, and either way every record lands once, in send order
 * (no retries happen on a stable cluster, so order holds).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startBroker, type BrokerHandle } from '@sluice/broker'
import { startMetadataServer, type MetadataServerHandle } from '@sluice/metadata'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, type ConsumerMessage, type Producer, type SluiceClient } from '../index.js'
import type { Sender } from './sender.js'

let dir: string
let metadata: MetadataServerHandle
let broker: BrokerHandle
let client: SluiceClient

async function until (what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check().catch(() => false)) return
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-inflight-int-'))
  metadata = await startMetadataServer({ host: '127.0.0.1', port: 0, dataDir: join(dir, 'meta'), defaultReplicationFactor: 1 })
  broker = await startBroker({ brokerId: 1, host: '127.0.0.1', port: 0, dataDir: join(dir, 'b1'), metadataEndpoints: [metadata.endpoint] })
  client = await connect({ bootstrap: [broker.endpoint] })
}, 60_000)

afterAll(async () => {
  await client?.close()
  await broker?.stop().catch(() => {})
  await metadata?.stop().catch(() => {})
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

async function newTopic (name: string): Promise<void> {
  await client.admin().createTopics([{ name, numPartitions: 1, replicationFactor: 1 }])
  await until(`a leader for ${name}`, async () => (await client.admin().describeTopics([name]))[0]!.partitions[0]!.leader >= 0)
}

/** Sends `n` records in one call while sampling, every event-loop turn, the batches in flight. */
async function sendSampling (producer: Producer, topic: string, n: number): Promise<number> {
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

async function readValues (topic: string, n: number): Promise<ConsumerMessage[]> {
  const consumer = client.consumer({ offsetReset: 'earliest', maxWaitMs: 100 })
  await consumer.assign([{ topic }])
  const out: ConsumerMessage[] = []
  const deadline = setTimeout(() => { void consumer.close() }, 20_000)
  try {
    for await (const m of consumer) {
      out.push(m)
      if (out.length >= n) break
    }
  } finally {
    clearTimeout(deadline)
    await consumer.close()
  }
  return out
}

function expectInOrder (read: ConsumerMessage[], n: number): void {
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
    await newTopic(topic)
    const producer = client.producer({ acks: 1, maxInFlight: 5, batchBytes: 2048, lingerMs: 0 })
    const most = await sendSampling(producer, topic, N)
    expect(most).toBeGreaterThan(1)
    expect(most).toBeLessThanOrEqual(5)
    expectInOrder(await readValues(topic, N), N)
  }, 60_000)

  it('acks=1 with maxInFlight 1 never has more than one batch of a partition out', async () => {
    const topic = 'acks1-one'
    await newTopic(topic)
    const producer = client.producer({ acks: 1, maxInFlight: 1, batchBytes: 2048, lingerMs: 0 })
    const most = await sendSampling(producer, topic, N / 4)
    expect(most).toBe(1)
    expectInOrder(await readValues(topic, N / 4), N / 4)
  }, 60_000)

  it('acks=0 with maxInFlight 5: every record arrives once, in order', async () => {
    const topic = 'acks0-five'
    await newTopic(topic)
    const producer = client.producer({ acks: 0, maxInFlight: 5, batchBytes: 2048, lingerMs: 0 })
    const records = Array.from({ length: N }, (_, i) => ({ value: `${String(i).padStart(8, '0')}${'x'.repeat(92)}` }))
    const meta = await producer.send({ topic, records })
    expect(meta.every((m) => m.offset === -1n)).toBe(true)
    expectInOrder(await readValues(topic, N), N)
  }, 60_000)
})
