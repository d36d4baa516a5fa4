/**
 * Producer and consumer behaviour against an in-memory fake broker (real gRPC on 127.0.0.1:0):
 * routing, retries and re-routing after NOT_LEADER, typed failures, long poll, seeks.
 * The real cluster is exercised by test-int/specs/client/client.int.test.ts.
 */
import { SluiceError } from '@sluice/protocol'
import { afterEach, describe, expect, it } from 'vitest'
import { FakeCluster } from './__fixtures__/fake-cluster.js'
import { connect, type ConsumerMessage, type SluiceClient } from './index.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function setup(brokers = [1, 2]): Promise<{ cluster: FakeCluster; client: SluiceClient }> {
  const cluster = await FakeCluster.start(brokers)
  cleanups.push(async () => {
    await cluster.stop()
  })
  const client = await connect({
    bootstrap: cluster.bootstrap,
    retry: { retries: 3, initialBackoffMs: 5, maxBackoffMs: 20, factor: 2 },
    metadataMinRefreshMs: 0,
    requestTimeoutMs: 5000,
  })
  cleanups.push(async () => {
    await client.close()
  })
  return { cluster, client }
}

async function take(it: AsyncIterator<ConsumerMessage>, n: number): Promise<ConsumerMessage[]> {
  const out: ConsumerMessage[] = []
  while (out.length < n) {
    const r = await it.next()
    if (r.done === true) break
    out.push(r.value)
  }
  return out
}

describe('producer against a fake broker', () => {
  it('routes keyed records by murmur2, one request per broker, contiguous offsets per partition', async () => {
    const { cluster, client } = await setup()
    cluster.createTopic('t', 6, (p) => (p % 2) + 1)
    const producer = client.producer({ lingerMs: 20, acks: 1 })
    const records = Array.from({ length: 600 }, (_, i) => ({ key: `k${i % 37}`, value: `v${i}` }))
    const meta = await producer.send({ topic: 't', records })
    expect(meta).toHaveLength(600)
    expect(meta[0]!.partition).toBe(meta.find((_m, i) => i % 37 === 0 && i > 0)!.partition)
    const byPartition = new Map<number, bigint[]>()
    for (const m of meta) byPartition.set(m.partition, [...(byPartition.get(m.partition) ?? []), m.offset])
    for (const [p, offsets] of byPartition) {
      expect(offsets).toEqual(offsets.map((_, i) => BigInt(i)))
      expect(cluster.logEnd(`t/${p}`)).toBe(BigInt(offsets.length))
    }
    // Every request went to the partition's leader and carried several partitions at once.
    for (const r of cluster.produceRequests) {
      for (const tp of r.partitions) expect(cluster.leaders.get(tp)).toBe(r.brokerId)
    }
    expect(Math.max(...cluster.produceRequests.map((r) => r.partitions.length))).toBeGreaterThan(1)
  })

  it('refreshes metadata and re-routes after NOT_LEADER_OR_FOLLOWER, keeping order', async () => {
    const { cluster, client } = await setup()
    cluster.createTopic('t', 1, () => 1)
    const producer = client.producer({ lingerMs: 0, acks: 'all' })
    await producer.send({ topic: 't', records: [{ value: 'a' }] })
    cluster.leaders.set('t/0', 2) // leadership moved; the client's cache still says broker 1
    const meta = await producer.send({ topic: 't', records: [{ value: 'b' }, { value: 'c' }] })
    expect(meta.map((m) => m.offset)).toEqual([1n, 2n])
    expect(cluster.produceRequests.some((r) => r.brokerId === 1 && r.partitions.includes('t/0'))).toBe(true)
    expect(cluster.produceRequests[cluster.produceRequests.length - 1]!.brokerId).toBe(2)
  })

  it('retries retriable partition errors and rejects non-retriable ones with a typed error', async () => {
    const { cluster, client } = await setup([1])
    cluster.createTopic('t', 2, () => 1)
    const producer = client.producer({ lingerMs: 0 })
    cluster.produceErrors.set('t/0', [7, 5]) // REQUEST_TIMED_OUT, LEADER_NOT_AVAILABLE
    const ok = await producer.send({ topic: 't', records: [{ value: 'x', partition: 0 }] })
    expect(ok[0]!.offset).toBe(0n)
    cluster.produceErrors.set('t/1', [10]) // MESSAGE_TOO_LARGE
    const err = await producer.send({ topic: 't', records: [{ value: 'y', partition: 1 }] }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(SluiceError)
    expect((err as SluiceError).code).toBe('MESSAGE_TOO_LARGE')
    expect((err as SluiceError).details).toMatchObject({ topic: 't', partition: 1 })
  })

  it('fails with DELIVERY_TIMEOUT (cause: the last error) when retries outlast deliveryTimeoutMs', async () => {
    const { cluster, client } = await setup([1])
    cluster.createTopic('t', 1, () => 1)
    cluster.produceErrors.set(
      't/0',
      Array.from({ length: 1000 }, () => 19),
    ) // NOT_ENOUGH_REPLICAS
    const producer = client.producer({ lingerMs: 0, deliveryTimeoutMs: 150 })
    const err = (await producer.send({ topic: 't', records: [{ value: 'x' }] }).catch((e: unknown) => e)) as SluiceError
    expect(err.code).toBe('DELIVERY_TIMEOUT')
    expect((err.cause as SluiceError).code).toBe('NOT_ENOUGH_REPLICAS')
  })

  it('rejects an unknown topic with UNKNOWN_TOPIC_OR_PARTITION after the retries, listing attempts', async () => {
    const { client } = await setup([1])
    const err = (await client
      .producer()
      .send({ topic: 'nope', records: [{ value: 'x' }] })
      .catch((e: unknown) => e)) as SluiceError
    expect(err.code).toBe('UNKNOWN_TOPIC_OR_PARTITION')
    expect(err.details.attempts).toHaveLength(4)
  })

  it('resolves acks=0 sends with offset -1n once written', async () => {
    const { cluster, client } = await setup([1])
    cluster.createTopic('t', 1, () => 1)
    const meta = await client.producer({ acks: 0, lingerMs: 0 }).send({ topic: 't', records: [{ value: 'x' }] })
    expect(meta[0]!.offset).toBe(-1n)
  })

  it('rejects malformed input with programmer errors and closed producers with CLIENT_CLOSED', async () => {
    const { cluster, client } = await setup([1])
    cluster.createTopic('t', 2, () => 1)
    expect(() => client.producer({ acks: 2 as 1 })).toThrow(RangeError)
    const producer = client.producer()
    await expect(producer.send({ topic: 't', records: [{ value: 42 as unknown as string }] })).rejects.toThrow(
      TypeError,
    )
    await expect(producer.send({ topic: 't', records: [{ value: 'x', partition: 9 }] })).rejects.toMatchObject({
      code: 'UNKNOWN_TOPIC_OR_PARTITION',
    })
    await producer.close()
    await expect(producer.send({ topic: 't', records: [{ value: 'x' }] })).rejects.toMatchObject({
      code: 'CLIENT_CLOSED',
    })
  })
  it('waits for buffer space (bufferBytes) instead of growing without bound, and still delivers everything', async () => {
    const { cluster, client } = await setup([1])
    cluster.createTopic('t', 2, () => 1)
    const producer = client.producer({ lingerMs: 1, bufferBytes: 2000, batchBytes: 600 })
    const meta = await producer.send({
      topic: 't',
      records: Array.from({ length: 200 }, (_, i) => ({ value: 'x'.repeat(100), partition: i % 2 })),
    })
    expect(meta.filter((m) => m.partition === 0).map((m) => m.offset)).toEqual(
      Array.from({ length: 100 }, (_, i) => BigInt(i)),
    )
    // Many small requests were needed: the buffer never held all 20 KB at once.
    expect(cluster.produceRequests.length).toBeGreaterThan(10)
  })

  it('sticky keyless records share a partition per batch and move on once it is sent', async () => {
    const { cluster, client } = await setup([1])
    cluster.createTopic('t', 6, () => 1)
    const producer = client.producer({ lingerMs: 0 })
    const first = await producer.send({
      topic: 't',
      records: Array.from({ length: 10 }, (_, i) => ({ value: String(i) })),
    })
    expect(new Set(first.map((m) => m.partition)).size).toBe(1)
    const second = await producer.send({
      topic: 't',
      records: Array.from({ length: 10 }, (_, i) => ({ value: String(i) })),
    })
    expect(new Set(second.map((m) => m.partition)).size).toBe(1)
    expect(second[0]!.partition).not.toBe(first[0]!.partition)
    const rr = await client
      .producer({ lingerMs: 0, keylessStrategy: 'round-robin' })
      .send({ topic: 't', records: Array.from({ length: 12 }, (_, i) => ({ value: String(i) })) })
    const counts = new Map<number, number>()
    for (const m of rr) counts.set(m.partition, (counts.get(m.partition) ?? 0) + 1)
    expect([...counts.values()]).toEqual([2, 2, 2, 2, 2, 2])
  })
})

describe('consumer against a fake broker', () => {
  it('timestamp seek skips older records in front of the match (batch-granular brokers)', async () => {
    const { cluster, client } = await setup([1])
    cluster.createTopic('t', 1, () => 1)
    await client
      .producer({ lingerMs: 0 })
      .send({ topic: 't', records: [10, 20, 30, 40].map((ts) => ({ value: String(ts), timestamp: ts })) })
    const consumer = client.consumer({ maxWaitMs: 50 })
    await consumer.assign([{ topic: 't' }])
    consumer.seek({ topic: 't', partition: 0, offset: { timestamp: 25 } })
    const [m] = await take(consumer.messages(), 1)
    expect(m).toMatchObject({ offset: 2n, timestamp: 30n })
  })

  it('pause() holds a partition back until resume()', async () => {
    const { cluster, client } = await setup([1])
    cluster.createTopic('t', 2, () => 1)
    await client.producer({ lingerMs: 0 }).send({
      topic: 't',
      records: [
        { value: 'a', partition: 0 },
        { value: 'b', partition: 1 },
      ],
    })
    const consumer = client.consumer({ maxWaitMs: 50, offsetReset: 'earliest' })
    await consumer.assign([{ topic: 't' }])
    consumer.pause([{ topic: 't', partition: 0 }])
    const it = consumer.messages()
    expect((await it.next()).value).toMatchObject({ partition: 1, offset: 0n })
    const pending = it.next()
    const raced = await Promise.race([pending, new Promise((resolve) => setTimeout(resolve, 200, 'still paused'))])
    expect(raced).toBe('still paused')
    consumer.resume([{ topic: 't', partition: 0 }])
    expect((await pending).value).toMatchObject({ partition: 0, offset: 0n })
    expect(() => {
      consumer.pause([{ topic: 'other', partition: 0 }])
    }).toThrow(SluiceError)
  })

  it('reads from the beginning in order, long-polls at the end, and seeks', async () => {
    const { cluster, client } = await setup()
    cluster.createTopic('t', 2, (p) => p + 1)
    const producer = client.producer({ lingerMs: 0 })
    for (let i = 0; i < 5; i++)
      await producer.send({
        topic: 't',
        records: [
          { value: `p0-${i}`, partition: 0 },
          { value: `p1-${i}`, partition: 1 },
        ],
      })
    const consumer = client.consumer({ maxWaitMs: 200 })
    await consumer.assign([{ topic: 't' }])
    expect(await consumer.position({ topic: 't', partition: 0 })).toBe(5n) // default start: the end
    consumer.seek({ topic: 't', partition: 0, offset: 'beginning' })
    consumer.seek({ topic: 't', partition: 1, offset: 3n })
    const it = consumer.messages()
    const got = await take(it, 7)
    const p0 = got.filter((m) => m.partition === 0).map((m) => m.value!.toString())
    const p1 = got.filter((m) => m.partition === 1).map((m) => m.value!.toString())
    expect(p0).toEqual(['p0-0', 'p0-1', 'p0-2', 'p0-3', 'p0-4'])
    expect(p1).toEqual(['p1-3', 'p1-4'])
    expect(await consumer.position({ topic: 't', partition: 0 })).toBe(5n)
    // Long poll: the consumer waits at the end and receives a record produced later.
    const later = take(it, 1)
    await producer.send({ topic: 't', records: [{ value: 'late', partition: 1 }] })
    const [m] = await later
    expect(m!.value!.toString()).toBe('late')
    expect(m!.offset).toBe(5n)
    await consumer.close()
    expect((await it.next()).done).toBe(true)
  })

  it('surfaces OFFSET_OUT_OF_RANGE typed, with the log range, or resets with offsetReset', async () => {
    const { cluster, client } = await setup([1])
    cluster.createTopic('t', 1, () => 1)
    await client.producer({ lingerMs: 0 }).send({ topic: 't', records: [{ value: 'a' }, { value: 'b' }] })
    const strict = client.consumer({ maxWaitMs: 50 })
    await strict.assign([{ topic: 't', partition: 0 }])
    strict.seek({ topic: 't', partition: 0, offset: 10n })
    const err = (await strict
      .messages()
      .next()
      .catch((e: unknown) => e)) as SluiceError
    expect(err.code).toBe('OFFSET_OUT_OF_RANGE')
    expect(err.details).toMatchObject({ topic: 't', partition: 0, offset: 10n, logEndOffset: 2n })
    const lenient = client.consumer({ maxWaitMs: 50, offsetReset: 'earliest' })
    await lenient.assign([{ topic: 't', partition: 0 }])
    lenient.seek({ topic: 't', partition: 0, offset: 10n })
    const got = await take(lenient.messages(), 2)
    expect(got.map((m) => m.offset)).toEqual([0n, 1n])
  })

  it('run(): eachBatch and eachMessage, stop() ends the run', async () => {
    const { cluster, client } = await setup([1])
    cluster.createTopic('t', 1, () => 1)
    await client
      .producer({ lingerMs: 0 })
      .send({ topic: 't', records: Array.from({ length: 20 }, (_, i) => ({ value: String(i) })) })
    const consumer = client.consumer({ maxWaitMs: 50, offsetReset: 'earliest' })
    await consumer.assign([{ topic: 't' }])
    const seen: string[] = []
    let reached!: () => void
    const all = new Promise<void>((resolve) => {
      reached = resolve
    })
    const handle = consumer.run({
      eachMessage: ({ message }) => {
        seen.push(message.value!.toString())
        if (seen.length === 20) reached()
      },
    })
    await all
    await handle.stop()
    await handle.done
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => String(i)))
    expect(await consumer.position({ topic: 't', partition: 0 })).toBe(20n)
  })

  it('run(): an async eachMessage is awaited before the next message; a sync throw ends the run', async () => {
    const { cluster, client } = await setup([1])
    cluster.createTopic('t', 1, () => 1)
    await client
      .producer({ lingerMs: 0 })
      .send({ topic: 't', records: Array.from({ length: 10 }, (_, i) => ({ value: String(i) })) })
    const consumer = client.consumer({ maxWaitMs: 50, offsetReset: 'earliest' })
    await consumer.assign([{ topic: 't' }])
    let running = 0
    let overlapped = false
    const seen: string[] = []
    const handle = consumer.run({
      eachMessage: async ({ message }) => {
        overlapped ||= running > 0
        running++
        await new Promise((resolve) => setImmediate(resolve))
        running--
        seen.push(message.value!.toString())
        if (seen.length === 10) throw new Error('enough')
      },
    })
    await expect(handle.done).rejects.toThrow('enough')
    expect(overlapped).toBe(false)
    expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => String(i)))
    const sync = client.consumer({ maxWaitMs: 50, offsetReset: 'earliest' })
    await sync.assign([{ topic: 't' }])
    const handled: string[] = []
    const run = sync.run({
      eachMessage: ({ message }) => {
        handled.push(message.value!.toString())
        if (handled.length === 3) throw new Error('sync stop')
      },
    })
    await expect(run.done).rejects.toThrow('sync stop')
    expect(handled).toEqual(['0', '1', '2'])
    expect(await sync.position({ topic: 't', partition: 0 })).toBe(3n)
  })
})

describe('connect', () => {
  it('rejects bad options with every problem listed, before any network use', async () => {
    await expect(connect({ bootstrap: [] })).rejects.toThrow(TypeError)
    const err = (await connect({ bootstrap: ['nohost'], requestTimeoutMs: 0, retry: { retries: -1 } }).catch(
      (e: unknown) => e,
    )) as Error
    expect(err).toBeInstanceOf(RangeError)
    expect(err.message).toContain('"nohost" is not "host:port"')
    expect(err.message).toContain('requestTimeoutMs')
    expect(err.message).toContain('retry.retries')
  })

  it('fails typed (NETWORK_EXCEPTION, every attempt listed) when no bootstrap broker answers', async () => {
    const err = (await connect({
      bootstrap: ['127.0.0.1:1'],
      retry: { retries: 1, initialBackoffMs: 5, maxBackoffMs: 5, factor: 1 },
      requestTimeoutMs: 2000,
    }).catch((e: unknown) => e)) as SluiceError
    expect(err).toBeInstanceOf(SluiceError)
    expect(err.code).toBe('NETWORK_EXCEPTION')
    expect(err.details.attempts).toHaveLength(2)
  })

  it('closed() resolves (never rejects) after close(), and the client refuses new work', async () => {
    const { client } = await setup([1])
    await client.close()
    expect(await client.closed()).toBeUndefined()
    expect(() => client.producer()).toThrow(SluiceError)
  })
})
