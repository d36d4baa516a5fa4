/**
 * Consumer prefetch against a REAL in-process cluster (metadata service + one broker on
 * 127.0.0.1 port 0, fresh temp dir): the fetcher fetches ahead while the application holds
 * delivered data, never buffers more than maxBufferedBytes (plus one batch, KIP-74), and every
 * record is still delivered once, in offset order per partition.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Consumer, Fetcher, SluiceClient, SubscriptionState } from '@sluice/client/internal'
import {
  createTopicWithLeaders,
  startRealCluster,
  until as waitUntil,
  type RealCluster,
} from '../../src/client/real-cluster.js'

let cluster: RealCluster
let client: SluiceClient

const RECORDS = 30_000 // 100-byte values in ~16 KiB batches: about 3 MB per topic
const BATCH_BYTES = 16 * 1024

/** Checks often: the states it waits for can be brief. */
const until = async (what: string, check: () => boolean | Promise<boolean>): Promise<void> => {
  await waitUntil(what, check, 20_000, 20)
}

beforeAll(async () => {
  cluster = await startRealCluster({ prefix: 'sluice-prefetch-int-' })
  client = cluster.client
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
})

async function filledTopic(name: string, partitions: number): Promise<void> {
  await createTopicWithLeaders(client, name, partitions)
  const producer = client.producer({ acks: 1, batchBytes: BATCH_BYTES, lingerMs: 5, keylessStrategy: 'round-robin' })
  const value = (i: number): string => `${String(i).padStart(8, '0')}${'v'.repeat(92)}`
  for (let i = 0; i < RECORDS; i += 5000) {
    await producer.send({ topic: name, records: Array.from({ length: 5000 }, (_, j) => ({ value: value(i + j) })) })
  }
}

function internals(consumer: Consumer): { fetcher: Fetcher; subs: SubscriptionState } {
  return consumer as unknown as { fetcher: Fetcher; subs: SubscriptionState }
}

describe('consumer prefetch', () => {
  it('fetches ahead while the application holds a batch', async () => {
    await filledTopic('ahead', 1)
    const consumer = client.consumer({ offsetReset: 'earliest', maxWaitMs: 100, maxPartitionBytes: BATCH_BYTES })
    await consumer.assign([{ topic: 'ahead' }])
    const { subs } = internals(consumer)
    const s = subs.get('ahead', 0)!
    let held = false
    let release!: () => void
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    let seen = 0
    let next = 0n
    let failure: unknown
    let finish!: () => void
    const all = new Promise<void>((resolve) => {
      finish = resolve
    })
    const handle = consumer.run({
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) expect(m.offset).toBe(next++)
        seen += batch.messages.length
        if (!held) {
          held = true
          await released // the application is busy with its first batch
        }
        if (seen >= RECORDS) finish()
      },
    })
    // While the first batch is held, more than one further response arrives: the partition was
    // fetched again although undelivered data was already buffered.
    handle.done.then(finish, (err: unknown) => {
      failure = err
      finish()
    })
    await until('two responses buffered behind the held batch', () => held && s.fetched.length >= 2)
    release()
    await all
    if (failure !== undefined) throw failure
    await handle.stop()
    await consumer.close()
    expect(seen).toBe(RECORDS)
  }, 60_000)

  it('does not let data held by a paused partition starve the others', async () => {
    await filledTopic('paused', 2)
    const maxBufferedBytes = 64 * 1024
    const consumer = client.consumer({
      offsetReset: 'earliest',
      maxWaitMs: 100,
      maxPartitionBytes: 32 * 1024,
      maxBufferedBytes,
    })
    const { fetcher } = internals(consumer)
    await consumer.assign([{ topic: 'paused', partition: 0 }])
    await until('partition 0 filled the whole budget', () => {
      const { buffered, reserved } = fetcher.bufferedBytes()
      return buffered >= maxBufferedBytes && reserved === 0
    })
    consumer.pause([{ topic: 'paused', partition: 0 }])
    await consumer.assign([
      { topic: 'paused', partition: 0 },
      { topic: 'paused', partition: 1 },
    ])
    const want = RECORDS / 2 // round-robin: half of the records are in partition 1
    let got = 0
    for await (const m of consumer.messages({ signal: AbortSignal.timeout(30_000) })) {
      expect(m.partition).toBe(1)
      if (++got >= want) break
    }
    expect(got).toBe(want)
    await consumer.close()
  }, 60_000)

  it('keeps at most maxBufferedBytes buffered (plus one batch) and delivers everything in order', async () => {
    await filledTopic('bounded', 3)
    const maxBufferedBytes = 96 * 1024
    const consumer = client.consumer({
      offsetReset: 'earliest',
      maxWaitMs: 100,
      maxBytes: 64 * 1024,
      maxPartitionBytes: 32 * 1024,
      maxBufferedBytes,
    })
    await consumer.assign([{ topic: 'bounded' }])
    const { fetcher } = internals(consumer)
    const bound = maxBufferedBytes + BATCH_BYTES + 1024 // one batch may go over (KIP-74)
    let most = 0
    const check = (): void => {
      const { buffered, reserved } = fetcher.bufferedBytes()
      most = Math.max(most, buffered)
      expect(buffered).toBeLessThanOrEqual(bound)
      expect(buffered + reserved).toBeLessThanOrEqual(bound + 64 * 1024)
    }
    // Nobody consumes yet: the fetcher fetches until the budget is used up, then stops (no fetch
    // in flight), holding far less than the topic's 3 MB.
    await until('the buffer filled up and fetching stopped', () => {
      const { buffered, reserved } = fetcher.bufferedBytes()
      return buffered >= maxBufferedBytes && reserved === 0
    })
    check()
    // Now consume everything, checking the bound at every batch.
    const next = new Map<number, bigint>()
    const seen = new Set<string>()
    let finish!: () => void
    const all = new Promise<void>((resolve) => {
      finish = resolve
    })
    let failure: unknown
    const handle = consumer.run({
      eachBatch: ({ batch }) => {
        check()
        for (const m of batch.messages) {
          expect(m.offset).toBe(next.get(m.partition) ?? 0n)
          next.set(m.partition, m.offset + 1n)
          seen.add(m.value!.subarray(0, 8).toString())
        }
        if (seen.size >= RECORDS) finish()
      },
    })
    handle.done.then(finish, (err: unknown) => {
      failure = err
      finish()
    })
    await all
    await handle.stop()
    await consumer.close()
    if (failure !== undefined) throw failure
    expect(seen.size).toBe(RECORDS)
    expect(most).toBeGreaterThan(0)
  }, 60_000)
})
