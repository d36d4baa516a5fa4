/**
 * The idempotent producer against a REAL in-process cluster (metadata service + brokers on
 * 127.0.0.1 port 0, fresh temp dirs): many batches in flight per partition on a stable cluster,
 * and a broker restart in the middle of a produce burst (the streams break, partitions lose their
 * leader, requests fail and are retried): every acknowledged record is in the log exactly once,
 * at the offset it was acknowledged with, in send order per partition.
 */
import { join } from 'node:path'
import { startBroker } from '@sluice/broker'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { ConsumerMessage, RecordMetadata } from '@sluice/client'
import {
  createTopicWithLeaders,
  readMessages,
  startRealCluster,
  until,
  type RealCluster,
} from '../../src/client/real-cluster.js'

async function startAll(brokers: number): Promise<RealCluster> {
  const c = await startRealCluster({
    prefix: 'sluice-idem-int-',
    brokers,
    broker: { heartbeatIntervalMs: 500 },
    connect: { retry: { retries: 10, initialBackoffMs: 20, maxBackoffMs: 300, factor: 2 }, metadataMinRefreshMs: 20 },
  })
  onTestFinished(async () => {
    await c.stop()
  })
  return c
}

/** Every acknowledged record once, at its acknowledged offset, in send order per partition. */
function checkExactlyOnceInOrder(sent: Array<{ value: string; meta: RecordMetadata }>, read: ConsumerMessage[]): void {
  const byPartition = new Map<number, ConsumerMessage[]>()
  for (const m of read) byPartition.set(m.partition, [...(byPartition.get(m.partition) ?? []), m])
  const seen = new Set<string>()
  for (const [p, msgs] of byPartition) {
    const offsets = msgs.map((m) => m.offset)
    expect(offsets, `partition ${p} offsets`).toEqual(offsets.map((_, i) => BigInt(i)))
    for (const m of msgs) {
      const v = m.value!.toString()
      expect(seen.has(v), `duplicate ${v}`).toBe(false)
      seen.add(v)
    }
    const expected = sent.filter((s) => s.meta.partition === p)
    expect(msgs.map((m) => m.value!.toString())).toEqual(expected.map((s) => s.value))
    expect(msgs.map((m) => m.offset)).toEqual(expected.map((s) => s.meta.offset))
  }
  expect(seen.size).toBe(sent.length)
}

describe('idempotent producer on a real cluster', () => {
  it('20,000 records with 5 batches in flight per partition: every record once, in order', async () => {
    const c = await startAll(2)
    const topic = 'idem-stable'
    await createTopicWithLeaders(c.client, topic, 4)
    const producer = c.client.producer({ maxInFlight: 5, lingerMs: 0, batchBytes: 2048 })
    const total = 20_000
    const calls = Array.from({ length: 100 }, (_, k) => {
      const values = Array.from({ length: total / 100 }, (_, i) => String(k * (total / 100) + i).padStart(6, '0'))
      return producer
        .send({ topic, records: values.map((v) => ({ key: `k${Number(v) % 97}`, value: v })) })
        .then((metas) => metas.map((meta, i) => ({ value: values[i]!, meta })))
    })
    const sent = (await Promise.all(calls)).flat()
    checkExactlyOnceInOrder(sent, await readMessages(c.client, topic, total))
  }, 60_000)

  it('a broker restart in the middle of a burst: acknowledged records appear exactly once, in send order', async () => {
    const c = await startAll(1)
    const topic = 'idem-restart'
    await createTopicWithLeaders(c.client, topic, 2)
    // A consumer reading all along: its fetch streams break with the broker and must resume.
    const consumer = c.client.consumer({ offsetReset: 'earliest', maxWaitMs: 200 })
    await consumer.assign([{ topic }])
    const read: ConsumerMessage[] = []
    const reading = (async () => {
      for await (const m of consumer) read.push(m)
    })()
    onTestFinished(async () => {
      await consumer.close()
      await reading
    })

    const producer = c.client.producer({
      maxInFlight: 5,
      lingerMs: 0,
      batchBytes: 1024,
      deliveryTimeoutMs: 30_000,
      requestTimeoutMs: 5000,
    })
    const sent: Array<{ value: string; meta: RecordMetadata }> = []
    const failures: unknown[] = []
    const calls = 200
    let acked = 0
    let firstAck!: () => void
    const firstAcked = new Promise<void>((resolve) => {
      firstAck = resolve
    })
    const sends = Array.from({ length: calls }, (_, k) => {
      const values = Array.from({ length: 50 }, (_, i) => `r${String(k * 50 + i).padStart(5, '0')}`)
      return producer
        .send({ topic, records: values.map((v) => ({ value: v, partition: Math.floor(k / 3) % 2 })) })
        .then(
          (metas) => {
            acked++
            firstAck()
            for (const [i, meta] of metas.entries()) sent.push({ value: values[i]!, meta })
          },
          (err: unknown) => {
            failures.push(err)
          },
        )
    })
    await firstAcked
    // Stop (streams end, in-flight requests fail, partitions lose their leader) and restart from
    // the same data dir and port while most of the burst is still unacknowledged.
    const pendingAtStop = calls - acked
    const old = c.brokers[0]!
    const port = old.port
    await old.stop()
    c.brokers[0] = await startBroker({
      brokerId: 1,
      host: '127.0.0.1',
      port,
      dataDir: join(c.dir, 'b1'),
      metadataEndpoints: [c.metadata.endpoint],
      heartbeatIntervalMs: 500,
    })
    await Promise.all(sends)
    expect(pendingAtStop).toBeGreaterThan(0)
    expect(failures).toEqual([])
    expect(acked).toBe(calls)
    // Send order per partition is call order (the records of one call go to one partition).
    sent.sort((a, b) => a.value.localeCompare(b.value))
    await until('the consumer read everything', async () => read.length >= sent.length, 30_000)
    checkExactlyOnceInOrder(sent, read)
  }, 60_000)
})
