/**
 * The console's JSON API (@sluice/console) on a REAL in-process cluster, driven over HTTP as the
 * page will drive it: topics created, altered, grown and deleted through the API, a record
 * produced through the API and found again by the server-side filter ("scanned N of M"), a
 * group's lag computed on the server and its reset plan shown as `sluice groups reset-offsets`
 * shows it, read-only mode and the access token refused on the server, and pagination over a few
 * hundred topics (SLUICE_CONSOLE_TOPICS=1000 to measure a page at 1,000).
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { startConsoleServer, type ConsoleServer } from '@sluice/console'
import { startRealCluster, until, type RealCluster } from '../src/client/real-cluster.js'
import { http, type Json } from '../src/console-http.js'

let cluster: RealCluster
let server: ConsoleServer

const api = async (method: string, path: string, body?: unknown) => await http(server.url, method, path, body)

async function apiTopic(name: string, partitions: number): Promise<void> {
  const r = await api('POST', '/api/topics', { name, partitions, replicationFactor: 1 })
  expect(r.status).toBe(201)
  await until(`leaders of ${name}`, async () => {
    const d = await api('GET', `/api/topics/${encodeURIComponent(name)}`)
    return d.status === 200 && d.body.partitionDetails.every((p: Json) => p.leader !== null)
  })
}

beforeAll(async () => {
  cluster = await startRealCluster({
    prefix: 'sluice-console-api-',
    metadata: {
      groupCoordinator: {
        minSessionTimeoutMs: 100,
        initialRebalanceDelayMs: 100,
        sweepIntervalMs: 20,
        offsetsTopicNumPartitions: 3,
      },
    },
  })
  server = await startConsoleServer({ client: cluster.client, port: 0 })
}, 60_000)

afterAll(async () => {
  await server?.close()
  await cluster?.stop()
})

describe('console API: cluster and topics', () => {
  it('describes the cluster: id, controller, brokers with leader and replica counts', async () => {
    await apiTopic(`ov-${randomUUID()}`, 3)
    const r = await api('GET', '/api/cluster')
    expect(r.status).toBe(200)
    expect(r.body.clusterId).toEqual(expect.any(String))
    expect(r.body.brokers).toHaveLength(1)
    const b = r.body.brokers[0]
    expect(b).toMatchObject({ id: 1, host: '127.0.0.1', rack: null })
    expect(b.leaders).toBeGreaterThanOrEqual(3)
    expect(b.replicas).toBe(r.body.partitions)
    expect(r.body.offlinePartitions).toBe(0)
    expect(r.body.underReplicatedPartitions).toBe(0)
  })

  it('creates, alters, grows and deletes a topic; answers errors as {error_code, message}', async () => {
    const name = `t-${randomUUID()}`
    await apiTopic(name, 2)
    const again = await api('POST', '/api/topics', { name, partitions: 2 })
    expect(again.status).toBe(409)
    expect(again.body).toEqual({
      error_code: 'TOPIC_ALREADY_EXISTS',
      message: expect.any(String),
      error: { code: 'TOPIC_ALREADY_EXISTS', message: again.body.message },
    })
    const bad = await api('POST', '/api/topics', { name: '', partitions: 'two' })
    expect(bad.status).toBe(400)
    expect(bad.body.error_code).toBe('BAD_REQUEST')

    const altered = await api('PATCH', `/api/topics/${name}/configs`, { configs: { 'retention.ms': '3600000' } })
    expect(altered.status).toBe(200)
    expect(altered.body.configs).toContainEqual({ name: 'retention.ms', value: '3600000', source: 'topic' })

    const grown = await api('POST', `/api/topics/${name}/partitions`, { count: 4 })
    expect(grown.status, JSON.stringify(grown.body)).toBe(200)
    expect(grown.body.partitions).toBe(4)

    const unconfirmed = await api('DELETE', `/api/topics/${name}`)
    expect(unconfirmed.status).toBe(400)
    expect(unconfirmed.body.error_code).toBe('CONFIRMATION_REQUIRED')
    const wrong = await api('DELETE', `/api/topics/${name}?confirm=other`)
    expect(wrong.status).toBe(400)
    expect((await api('GET', `/api/topics/${name}`)).status).toBe(200)
    const deleted = await api('DELETE', `/api/topics/${name}?confirm=${name}`)
    expect(deleted.status).toBe(200)
    await until('topic gone', async () => (await api('GET', `/api/topics/${name}`)).status === 404)
    const missing = await api('GET', `/api/topics/${name}`)
    expect(missing.body.error_code).toMatch(/NOT_FOUND|UNKNOWN_TOPIC_OR_PARTITION/)
    expect((await api('GET', '/api/nothing-here')).status).toBe(404)
    expect((await api('PUT', '/api/topics')).status).toBe(405)
  })
})

describe('console API: messages', () => {
  it('produces through the API and finds the record with q and jsonPath, saying how much it scanned', async () => {
    const topic = `m-${randomUUID()}`
    await apiTopic(topic, 1)
    for (let i = 0; i < 40; i++) {
      const r = await api('POST', `/api/topics/${topic}/messages`, {
        key: `k${i}`,
        value: { user: i === 17 ? 'alice' : `user${i}`, n: i },
        headers: { source: 'console-test' },
      })
      expect(r.status).toBe(201)
      expect(r.body.offset).toBe(i)
    }
    const binary = await api('POST', `/api/topics/${topic}/messages`, { key: null, value: 'plain text', partition: 0 })
    expect(binary.status).toBe(201)

    const page = await api('GET', `/api/topics/${topic}/messages?partition=0&offset=0&limit=5`)
    expect(page.status).toBe(200)
    expect(page.body.messages).toHaveLength(5)
    const first = page.body.messages[0]
    expect(first.offset).toBe(0)
    expect(first.key).toMatchObject({ encoding: 'utf8', text: 'k0' })
    expect(first.value.json).toEqual({ user: 'user0', n: 0 })
    expect(first.headers).toEqual([{ key: 'source', value: expect.objectContaining({ text: 'console-test' }) }])
    expect(page.body.next).toEqual({ '0': 5 })

    // With limit 1 the scan stops at the first match; with the default limit it reads the range.
    const byQ = await api('GET', `/api/topics/${topic}/messages?q=alice&limit=1`)
    expect(byQ.body.messages.map((m: Json) => m.offset)).toEqual([17])
    expect(byQ.body).toMatchObject({ matched: 1, scanned: 18, of: 41, complete: false, next: { '0': 18 } })
    const byKey = await api('GET', `/api/topics/${topic}/messages?q=k3`)
    expect(byKey.body.messages.map((m: Json) => m.key.text)).toEqual([
      'k3',
      'k30',
      'k31',
      'k32',
      'k33',
      'k34',
      'k35',
      'k36',
      'k37',
      'k38',
      'k39',
    ])
    expect(byKey.body).toMatchObject({ matched: 11, scanned: 41, of: 41, complete: true })

    const byPath = await api(
      'GET',
      `/api/topics/${topic}/messages?jsonPath=${encodeURIComponent('$.user=alice')}&limit=10`,
    )
    expect(byPath.body.messages.map((m: Json) => m.key.text)).toEqual(['k17'])
    expect(byPath.body).toMatchObject({ matched: 1, scanned: 41, of: 41, complete: true })

    const bounded = await api('GET', `/api/topics/${topic}/messages?q=alice&maxScan=10`)
    expect(bounded.body).toMatchObject({ messages: [], scanned: 10, matched: 0, of: 41, complete: false })

    const newest = await api('GET', `/api/topics/${topic}/messages?newest&limit=2`)
    expect(newest.body.messages.map((m: Json) => m.offset)).toEqual([39, 40])
    expect(newest.body.messages[1].value).toMatchObject({ encoding: 'utf8', text: 'plain text' })

    const code = await api('GET', `/api/topics/${topic}/messages?jsonPath=${encodeURIComponent('$.constructor')}`)
    expect(code.body.matched).toBe(0)
    const badPath = await api('GET', `/api/topics/${topic}/messages?jsonPath=${encodeURIComponent('process.exit()')}`)
    expect(badPath.status).toBe(400)
    expect((await api('POST', '/api/topics/no-such-topic/messages', { value: 'x' })).status).toBe(404)
  })
})

describe('console API: groups', () => {
  it("computes a group's lag on the server and shows the reset plan as a dry run", async () => {
    const topic = `g-${randomUUID()}`
    const groupId = `grp-${randomUUID()}`
    await apiTopic(topic, 1)
    await cluster.client.producer().send({ topic, records: Array.from({ length: 10 }, (_, i) => ({ value: `v${i}` })) })
    const consumer = cluster.client.consumer({
      groupId,
      autoCommit: false,
      autoOffsetReset: 'earliest',
      sessionTimeoutMs: 3000,
      heartbeatIntervalMs: 100,
      maxWaitMs: 100,
    })
    onTestFinished(async () => {
      await consumer.close().catch(() => {})
    })
    consumer.subscribe({ topics: [topic] })
    for await (const m of consumer.messages()) if (m.offset >= 3n) break
    await consumer.commit([{ topic, partition: 0, offset: 4n }])

    const live = await api('GET', `/api/groups/${groupId}`)
    expect(live.status).toBe(200)
    expect(live.body.members).toHaveLength(1)
    expect(live.body.offsets).toEqual([
      { topic, partition: 0, committed: 4, logEnd: 10, lag: 6, memberId: live.body.members[0].memberId },
    ])
    expect(live.body.totalLag).toBe(6)
    const listed = await api('GET', `/api/groups?search=${groupId}`)
    expect(listed.body).toMatchObject({ total: 1, items: [{ groupId, members: 1, totalLag: 6, topics: [topic] }] })

    const busy = await api('POST', `/api/groups/${groupId}/reset-offsets`, { topic, to: 'earliest' })
    expect(busy.status).toBe(409)
    expect(busy.body.error_code).toBe('NON_EMPTY_GROUP')
    await consumer.close()

    const plan = await api('POST', `/api/groups/${groupId}/reset-offsets`, { topic, to: 'earliest' })
    expect(plan.status).toBe(200)
    expect(plan.body).toEqual({
      group: groupId,
      executed: false,
      partitions: [{ topic, partition: 0, current: 4, target: 0 }],
    })
    expect((await api('GET', `/api/groups/${groupId}`)).body.totalLag).toBe(6)
    const done = await api('POST', `/api/groups/${groupId}/reset-offsets`, {
      topic,
      to: { shiftBy: -2 },
      execute: true,
    })
    expect(done.body.partitions).toEqual([{ topic, partition: 0, current: 4, target: 2 }])
    expect((await api('GET', `/api/groups/${groupId}`)).body.totalLag).toBe(8)
    expect((await api('GET', '/api/groups/no-such-group')).status).toBe(404)
  })
})

describe('console API: safety, checked on the server', () => {
  it('read-only mode refuses every change with 403 and still reads (and plans resets)', async () => {
    const ro = await startConsoleServer({ client: cluster.client, port: 0, readOnly: true })
    onTestFinished(async () => {
      await ro.close()
    })
    const name = `ro-${randomUUID()}`
    const existing = `ro-existing-${randomUUID()}`
    await apiTopic(existing, 1)
    const refusals = [
      await http(ro.url, 'POST', '/api/topics', { name }),
      await http(ro.url, 'PATCH', `/api/topics/${name}/configs`, { configs: { 'retention.ms': '1' } }),
      await http(ro.url, 'POST', `/api/topics/${name}/partitions`, { count: 3 }),
      await http(ro.url, 'DELETE', `/api/topics/${name}?confirm=${name}`),
      await http(ro.url, 'POST', `/api/topics/${name}/messages`, { value: 'x' }),
      await http(ro.url, 'POST', '/api/groups/g/reset-offsets', { topic: name, to: 'earliest', execute: true }),
    ]
    for (const r of refusals) expect([r.status, r.body.error_code]).toEqual([403, 'FORBIDDEN'])
    expect((await api('GET', `/api/topics/${name}`)).status).toBe(404)
    expect((await http(ro.url, 'GET', '/api/cluster')).status).toBe(200)
    const plan = await http(ro.url, 'POST', `/api/groups/ro-${randomUUID()}/reset-offsets`, {
      topic: existing,
      to: 'earliest',
    })
    expect(plan.body).toMatchObject({ executed: false, partitions: [{ partition: 0, current: null, target: 0 }] })
  })

  it('with a token, every route answers 401 without it, and a form-encoded post is refused', async () => {
    const token = `tok-${randomUUID()}`
    const guarded = await startConsoleServer({ client: cluster.client, port: 0, token })
    onTestFinished(async () => {
      await guarded.close()
    })
    for (const [method, path] of [
      ['GET', '/api/cluster'],
      ['GET', '/api/topics'],
      ['POST', '/api/topics'],
      ['GET', '/api/unknown'],
    ] as const) {
      const none = await http(guarded.url, method, path)
      expect([none.status, none.body.error_code]).toEqual([401, 'UNAUTHORIZED'])
      const wrong = await http(guarded.url, method, path, undefined, { authorization: 'Bearer nope' })
      expect(wrong.status).toBe(401)
    }
    const auth = { authorization: `Bearer ${token}` }
    expect((await http(guarded.url, 'GET', '/api/cluster', undefined, auth)).status).toBe(200)
    const form = await fetch(`${guarded.url}/api/topics`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/plain' },
      body: JSON.stringify({ name: `form-${randomUUID()}` }),
    })
    expect(form.status).toBe(415)
  })
})

describe('console API: pagination', () => {
  const count = Number(process.env.SLUICE_CONSOLE_TOPICS ?? 300)
  it(`pages through ${count} topics on the server, searching by name`, { timeout: 300_000 }, async () => {
    const prefix = `p${randomUUID().slice(0, 8)}-`
    const names = Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`)
    const createStarted = performance.now()
    for (let i = 0; i < names.length; i += 100)
      await cluster.client
        .admin()
        .createTopics(names.slice(i, i + 100).map((name) => ({ name, numPartitions: 1, replicationFactor: 1 })))
    const createMs = performance.now() - createStarted
    await until(
      'every topic has a leader',
      async () =>
        (await cluster.client.admin().describeTopics(names)).every((t) => t.partitions.every((p) => p.leader >= 0)),
      120_000,
      200,
    )
    const leadersMs = performance.now() - createStarted
    const first = await api('GET', `/api/topics?search=${prefix}&page=1&pageSize=50`)
    expect(first.body).toMatchObject({ total: count, page: 1, pageSize: 50 })
    expect(first.body.items.map((t: Json) => t.name)).toEqual(names.slice(0, 50))
    const lastPage = Math.ceil(count / 50)
    const last = await api('GET', `/api/topics?search=${prefix}&page=${lastPage}&pageSize=50`)
    expect(last.body.items.map((t: Json) => t.name)).toEqual(names.slice((lastPage - 1) * 50))
    expect((await api('GET', `/api/topics?search=${prefix}&page=${lastPage + 1}`)).body.items).toEqual([])
    expect((await api('GET', '/api/topics?pageSize=100000')).status).toBe(400)
    const one = await api('GET', `/api/topics?search=${names[123 % count]}`)
    expect(one.body.items.map((t: Json) => t.name)).toEqual([names[123 % count]])

    // The first read of fresh topics also fills the SDK's metadata cache (one refresh for the
    // page's topics, docs/decisions.md), so pages are timed after it.
    const cold: number[] = []
    for (let page = 1; page <= Math.ceil(count / 50); page++)
      cold.push((await api('GET', `/api/topics?search=${prefix}&page=${page}&pageSize=50`)).ms)
    const timings: number[] = []
    for (let page = 1; page <= 5; page++) timings.push((await api('GET', `/api/topics?page=${page}&pageSize=50`)).ms)
    const overview = await api('GET', '/api/cluster')
    console.info(
      `console pagination: ${count} topics created in ${createMs.toFixed(0)} ms (all led after ${leadersMs.toFixed(0)} ms); GET /api/topics page of 50: ` +
        `${timings.map((t) => t.toFixed(0)).join(', ')} ms (first reads: max ${Math.max(...cold).toFixed(0)} ms); GET /api/cluster: ${overview.ms.toFixed(0)} ms`,
    )
    expect(Math.max(...timings)).toBeLessThan(2000)
  })
})
