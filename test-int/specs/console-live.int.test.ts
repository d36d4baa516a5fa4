/**
 * The console's live and cluster views on a REAL in-process cluster of two brokers with admin
 * ports: brokers with their admin and Kafka ports and health (a stopped broker that still holds
 * replicas is listed "down"), one broker's partitions paginated, the cluster's throughput
 * sampled from the brokers' /metrics while someone looks, topic sizes from the same metrics, the
 * live tail as Server-Sent Events (a produced record arrives, a flood is cut with a `skipped`
 * count, the consumer is freed when the browser leaves), and a group's lag history.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { startConsoleServer, type ConsoleServer, type ConsoleServerOptions } from '@sluice/console'
import { startRealCluster, until, type RealCluster } from '../src/client/real-cluster.js'
import { http, openSse, type Json } from '../src/console-http.js'

let cluster: RealCluster
let server: ConsoleServer

const api = async (method: string, path: string, body?: unknown) => await http(server.url, method, path, body)

async function topicWithLeaders(name: string, partitions: number, replicationFactor = 1): Promise<void> {
  const r = await api('POST', '/api/topics', { name, partitions, replicationFactor })
  expect(r.status, JSON.stringify(r.body)).toBe(201)
  await until(`leaders of ${name}`, async () => {
    const d = await api('GET', `/api/topics/${name}`)
    return d.status === 200 && d.body.partitionDetails.every((p: Json) => p.leader !== null)
  })
}

async function consoleWith(options: Partial<ConsoleServerOptions>): Promise<ConsoleServer> {
  const s = await startConsoleServer({ client: cluster.client, port: 0, ...options })
  onTestFinished(async () => {
    await s.close()
  })
  return s
}

beforeAll(async () => {
  cluster = await startRealCluster({
    prefix: 'sluice-console-live-',
    brokers: 2,
    broker: { adminPort: 0 },
    metadata: {
      groupCoordinator: {
        minSessionTimeoutMs: 100,
        initialRebalanceDelayMs: 100,
        sweepIntervalMs: 20,
        offsetsTopicNumPartitions: 2,
      },
    },
  })
  server = await startConsoleServer({
    client: cluster.client,
    port: 0,
    metricsIntervalMs: 200,
    lagIntervalMs: 100,
  })
}, 60_000)

afterAll(async () => {
  await server?.close()
  await cluster?.stop()
})

describe('console: brokers and throughput', () => {
  it('lists brokers with admin and Kafka ports and health, and one broker with its partitions', async () => {
    const topic = `br-${randomUUID()}`
    await topicWithLeaders(topic, 4, 2)
    const c = await api('GET', '/api/cluster')
    expect(c.status).toBe(200)
    expect(c.body.brokers.map((b: Json) => [b.id, b.health, b.adminPort, b.kafkaPort])).toEqual(
      cluster.brokers.map((b) => [b.brokerId, 'up', b.adminPort, expect.any(Number)]),
    )
    expect(c.body.brokers.every((b: Json) => b.adminPort > 0 && b.kafkaPort > 0)).toBe(true)
    const list = await api('GET', '/api/brokers')
    expect(list.body.total).toBe(2)
    expect(list.body.items).toEqual(c.body.brokers)

    const one = await api('GET', '/api/brokers/1?pageSize=2')
    expect(one.status).toBe(200)
    expect(one.body).toMatchObject({ id: 1, health: 'up', partitions: { page: 1, pageSize: 2 } })
    expect(one.body.partitions.items).toHaveLength(2)
    const all = await api('GET', '/api/brokers/1?pageSize=500')
    const mine = all.body.partitions.items.filter((p: Json) => p.topic === topic)
    expect(mine.map((p: Json) => p.partition)).toEqual([0, 1, 2, 3])
    expect(mine.every((p: Json) => ['leader', 'follower'].includes(p.role) && p.inSync === true)).toBe(true)
    expect(all.body.partitions.total).toBe(one.body.partitions.total)
    expect(all.body.leaders).toBe(all.body.partitions.items.filter((p: Json) => p.role === 'leader').length)
    expect((await api('GET', '/api/brokers/99')).status).toBe(404)
    expect((await api('GET', '/api/brokers/one')).status).toBe(400)
  })

  it('samples bytes and records in and out from the brokers while someone asks', async () => {
    const topic = `tp-${randomUUID()}`
    await topicWithLeaders(topic, 2, 1)
    const first = await api('GET', '/api/metrics/throughput')
    expect(first.body).toMatchObject({ intervalMs: 200, samples: expect.any(Array) })
    await until(
      'both brokers scraped',
      async () => (await api('GET', '/api/metrics/throughput')).body.sources?.scraped === 2,
    )
    expect((await api('GET', '/api/metrics/throughput')).body.sources).toEqual({ brokers: 2, scraped: 2 })
    const producer = cluster.client.producer()
    const reader = cluster.client.consumer({ maxWaitMs: 100, offsetReset: 'earliest' })
    onTestFinished(async () => {
      await reader.close()
    })
    await reader.assign([
      { topic, partition: 0 },
      { topic, partition: 1 },
    ])
    let read = 0
    const stopReading = new AbortController()
    const reading = (async () => {
      for await (const _ of reader.messages({ signal: stopReading.signal })) read++
    })().catch(() => {})
    await until(
      'a sample with records in and out',
      async () => {
        await producer.send({ topic, records: Array.from({ length: 20 }, (_, i) => ({ value: `r${i}` })) })
        const s = (await api('GET', '/api/metrics/throughput')).body.samples as Json[]
        return s.some((x) => x.recordsIn > 0 && x.bytesIn > 0) && s.some((x) => x.recordsOut > 0 && x.bytesOut > 0)
      },
      30_000,
      100,
    )
    expect(read).toBeGreaterThan(0)
    const samples = (await api('GET', '/api/metrics/throughput')).body.samples as Json[]
    for (const x of samples) {
      expect(Object.keys(x).sort()).toEqual(['bytesIn', 'bytesOut', 'recordsIn', 'recordsOut', 't'])
      expect(x.bytesIn).toBeGreaterThanOrEqual(0)
    }
    expect(samples.map((x) => x.t)).toEqual([...samples.map((x) => x.t)].sort((a, b) => a - b))
    // The same metrics give the topic its size on disk.
    await until('the topic has a size', async () => {
      const d = (await api('GET', `/api/topics/${topic}`)).body
      return d.sizeBytes > 0 && d.partitionDetails.every((p: Json) => p.sizeBytes > 0)
    })
    const row = (await api('GET', `/api/topics?search=${topic}`)).body.items[0]
    expect(row.sizeBytes).toBeGreaterThan(0)
    stopReading.abort()
    await reading
  })
})

describe('console: live tail (Server-Sent Events)', () => {
  it('pushes a produced record as the message browser shows it, and frees its consumer on disconnect', async () => {
    const topic = `tail-${randomUUID()}`
    await topicWithLeaders(topic, 2)
    await cluster.client.producer().send({ topic, records: [{ value: 'before', partition: 0 }] })
    const tail = await openSse(`${server.url}/api/topics/${topic}/tail?from=end`)
    expect([tail.status, tail.contentType]).toEqual([200, 'text/event-stream; charset=utf-8'])
    await tail.waitFor((e) => e.event === 'ready', 'the ready event')
    await until('the tail is open', () => server.openStreams === 1)
    const value = JSON.stringify({ id: randomUUID(), n: 1 })
    // The tail's consumer may still be looking up the end: send until the record arrives.
    await until(
      'the produced record on the tail',
      async () => {
        await cluster.client.producer().send({
          topic,
          records: [{ key: 'k', value, partition: 1, headers: [{ key: 'h', value: Buffer.from('v') }] }],
        })
        return tail.events.some((e) => e.event === 'record')
      },
      20_000,
      500,
    )
    const got = await tail.waitFor((e) => e.event === 'record', 'a record')
    expect(got.data).toMatchObject({
      partition: 1,
      key: { encoding: 'utf8', text: 'k' },
      value: { encoding: 'utf8', text: value, json: JSON.parse(value) },
      headers: [{ key: 'h', value: { encoding: 'utf8', text: 'v' } }],
    })
    expect(tail.events.some((e) => e.event === 'record' && e.data.value.text === 'before')).toBe(false)
    // The same view as the message browser's for that record.
    const browsed = await api('GET', `/api/topics/${topic}/messages?partition=1&offset=${got.data.offset}&limit=1`)
    expect(browsed.body.messages[0]).toEqual(got.data)
    tail.close()
    await until('the tail is closed on the server', () => server.openStreams === 0)
  })

  it('reads from the beginning of one partition, cuts a flood with a skipped count, and refuses bad input', async () => {
    const slow = await consoleWith({ tailMaxPerSecond: 5 })
    const topic = `flood-${randomUUID()}`
    await topicWithLeaders(topic, 2)
    await cluster.client.producer().send({
      topic,
      records: Array.from({ length: 60 }, (_, i) => ({ value: `v${i}`, partition: 0 })),
    })
    await cluster.client.producer().send({ topic, records: [{ value: 'other', partition: 1 }] })
    const tail = await openSse(`${slow.url}/api/topics/${topic}/tail?from=beginning&partition=0`)
    onTestFinished(() => tail.close())
    const skipped = await tail.waitFor((e) => e.event === 'skipped', 'a skipped event')
    expect(skipped.data.count).toBeGreaterThan(0)
    const records = tail.events.filter((e) => e.event === 'record')
    expect(records.length).toBeGreaterThanOrEqual(5)
    expect(records.slice(0, 5).map((e) => e.data.value.text)).toEqual(['v0', 'v1', 'v2', 'v3', 'v4'])
    expect(records.every((e) => e.data.partition === 0)).toBe(true)

    expect((await http(slow.url, 'GET', `/api/topics/${topic}/tail?from=middle`)).status).toBe(400)
    expect((await http(slow.url, 'GET', `/api/topics/${topic}/tail?partition=7`)).status).toBe(404)
    const missing = await http(slow.url, 'GET', `/api/topics/no-${randomUUID()}/tail`)
    expect(missing.status).toBe(404)
    expect(missing.body.error_code).toMatch(/NOT_FOUND|UNKNOWN_TOPIC_OR_PARTITION/)
  })

  it('sends heartbeat comments while idle', async () => {
    const beating = await consoleWith({ tailHeartbeatMs: 100 })
    const topic = `hb-${randomUUID()}`
    await topicWithLeaders(topic, 1)
    const tail = await openSse(`${beating.url}/api/topics/${topic}/tail`)
    onTestFinished(() => tail.close())
    await until('two heartbeats', () => tail.comments >= 2)
    expect(tail.events.filter((e) => e.event === 'record')).toEqual([])
  })
})

describe('console: lag history', () => {
  it("samples a looked-at group's total lag and shows it rising", async () => {
    const topic = `lag-${randomUUID()}`
    const groupId = `g-${randomUUID()}`
    await topicWithLeaders(topic, 1)
    const producer = cluster.client.producer()
    await producer.send({ topic, records: Array.from({ length: 5 }, (_, i) => ({ value: `a${i}` })) })
    const consumer = cluster.client.consumer({
      groupId,
      autoCommit: false,
      autoOffsetReset: 'earliest',
      maxWaitMs: 100,
    })
    onTestFinished(async () => {
      await consumer.close().catch(() => {})
    })
    consumer.subscribe({ topics: [topic] })
    for await (const m of consumer.messages()) if (m.offset >= 1n) break
    await consumer.commit([{ topic, partition: 0, offset: 2n }])

    expect((await api('GET', `/api/groups/${groupId}`)).body.totalLag).toBe(3)
    const h = await api('GET', `/api/groups/${groupId}/lag-history`)
    expect(h.status).toBe(200)
    expect(h.body.intervalMs).toBe(100)
    expect(h.body.samples[0]).toEqual({ t: expect.any(Number), totalLag: 3 })
    await producer.send({ topic, records: Array.from({ length: 7 }, (_, i) => ({ value: `b${i}` })) })
    await until('a sampled lag of 10', async () =>
      ((await api('GET', `/api/groups/${groupId}/lag-history`)).body.samples as Json[]).some((s) => s.totalLag === 10),
    )
    const samples = (await api('GET', `/api/groups/${groupId}/lag-history`)).body.samples as Json[]
    expect(samples.length).toBeGreaterThanOrEqual(2)
    expect(samples.map((s) => s.t)).toEqual([...samples.map((s) => s.t)].sort((a, b) => a - b))
    // A group nobody has: no samples, not an error (the page asks before the group exists too).
    expect((await api('GET', `/api/groups/none-${randomUUID()}/lag-history`)).body.samples).toEqual([])
  })
})

describe('console: a broker that is gone', () => {
  it('is listed as down while it still holds replicas', async () => {
    const topic = `down-${randomUUID()}`
    await topicWithLeaders(topic, 2, 2)
    await cluster.brokers[1]!.stop()
    await until('broker 2 is down', async () => {
      const b = (await api('GET', '/api/brokers')).body.items as Json[]
      return b.some((x) => x.id === 2 && x.health === 'down')
    })
    const c = (await api('GET', '/api/cluster')).body
    const down = c.brokers.find((b: Json) => b.id === 2)
    expect(down).toMatchObject({ id: 2, health: 'down', host: null, adminPort: null })
    expect(down.replicas).toBeGreaterThan(0)
    expect(c.brokers.find((b: Json) => b.id === 1).health).toBe('up')
    const detail = await api('GET', '/api/brokers/2')
    expect(detail.status).toBe(200)
    expect(detail.body.partitions.items.some((p: Json) => p.topic === topic)).toBe(true)
  })
})
