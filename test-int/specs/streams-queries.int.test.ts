/**
 * Interactive queries on a REAL in-process cluster (one metadata service, one broker, 127.0.0.1
 * port 0): a count per key over six partitions, run by two instances of one application, each
 * announcing its applicationServer. For every key both instances name the same owner, the
 * owner's store answers with the count computed from the input and the other's has nothing;
 * the two local views together hold every key once. A store that is not in the topology, or is
 * not a key-value store, is refused with StreamsError 'QUERY'. Through the HTTP endpoint
 * (startQueryServer), one instance answers every key: its own, and the other's forwarded.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import type { SluiceClient } from '@sluice/client'
import { Serdes, type StreamsApp, StreamsBuilder, isStreamsError, startQueryServer } from '@sluice/streams'
import { createTopicWithLeaders, until, type RealCluster } from '../src/client/real-cluster.js'
import { startStreamsCluster, startTestStreamsApp } from '../src/client/streams-cluster.js'

let cluster: RealCluster
let client: SluiceClient

beforeAll(async () => {
  cluster = await startStreamsCluster('sluice-streams-queries-int-')
  client = cluster.client
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
})

async function startInstance(app: string, input: string, endpoint: string): Promise<StreamsApp> {
  const builder = new StreamsBuilder()
  builder
    .stream(input, { keySerde: Serdes.string(), valueSerde: Serdes.string() })
    .groupByKey()
    .count({ name: 'counts' })
  return await startTestStreamsApp(client, builder.build().plan(app), app, { applicationServer: endpoint })
}

describe('streams interactive queries on a real cluster', () => {
  it('routes every key to the instance that holds it, whose store has the count from the input', async () => {
    const id = randomUUID().slice(0, 8)
    const app = `queries-${id}`
    const input = `clicks-${id}`
    await createTopicWithLeaders(client, input, 6)
    const a = await startInstance(app, input, 'a.local:7001')
    const b = await startInstance(app, input, 'b.local:7002')
    const byEndpoint = new Map([
      ['a.local:7001', a],
      ['b.local:7002', b],
    ])
    await until(
      'three tasks on each instance',
      () => a.metrics().tasks.length === 3 && b.metrics().tasks.length === 3,
      30_000,
    )

    const expected = new Map<string, number>()
    const records = Array.from({ length: 300 }, (_, i) => {
      const key = `user-${(i * 7) % 41}`
      expected.set(key, (expected.get(key) ?? 0) + 1)
      return { key, value: 'click' }
    })
    const producer = client.producer({ lingerMs: 1 })
    await producer.send({ topic: input, records })
    await producer.close()

    const owner = (key: string) => {
      const meta = a.metadataForKey('counts', key, Serdes.string())
      expect(b.metadataForKey('counts', key, Serdes.string())).toEqual({ ...meta, local: !meta.local })
      return { meta, app: byEndpoint.get(meta.endpoint!)! }
    }
    await until(
      "every key's count on its owner",
      () => [...expected].every(([key, n]) => owner(key).app.store<string, number>('counts').get(key) === n),
      30_000,
    )
    for (const [key] of expected) {
      const { meta, app: holder } = owner(key)
      const other = holder === a ? b : a
      expect(other.store<string, number>('counts').get(key)).toBeUndefined()
      expect(holder.metadataForKey('counts', key, Serdes.string()).local).toBe(true)
      expect(meta.partition).toBeGreaterThanOrEqual(0)
    }
    const local = [...a.store<string, number>('counts').all(), ...b.store<string, number>('counts').all()]
    expect(new Map(local.map((kv) => [kv.key, kv.value]))).toEqual(expected)
    expect(local).toHaveLength(expected.size)

    for (const bad of [() => a.store('nope'), () => a.metadataForKey('nope', 'k', Serdes.string())]) {
      let caught: unknown
      try {
        bad()
      } catch (e) {
        caught = e
      }
      expect(isStreamsError(caught, 'QUERY')).toBe(true)
    }
  })

  it('answers every key over HTTP from either instance, forwarding to the owner', async () => {
    const id = randomUUID().slice(0, 8)
    const app = `queries-http-${id}`
    const input = `clicks-${id}`
    await createTopicWithLeaders(client, input, 6)
    const servers = [await startQueryServer({ port: 0 }), await startQueryServer({ port: 0 })]
    onTestFinished(async () => {
      for (const s of servers) await s.close()
    })
    const a = await startInstance(app, input, servers[0]!.endpoint)
    const b = await startInstance(app, input, servers[1]!.endpoint)
    servers[0]!.serve(a, { stores: { counts: {} } })
    servers[1]!.serve(b, { stores: { counts: {} } })
    await until(
      'three tasks on each instance',
      () => a.metrics().tasks.length === 3 && b.metrics().tasks.length === 3,
      30_000,
    )
    const expected = new Map<string, number>()
    const records = Array.from({ length: 120 }, (_, i) => {
      const key = `page-${(i * 5) % 23}`
      expected.set(key, (expected.get(key) ?? 0) + 1)
      return { key, value: 'view' }
    })
    const producer = client.producer({ lingerMs: 1 })
    await producer.send({ topic: input, records })
    await producer.close()

    const get = async (server: number, path: string) => {
      const res = await fetch(`http://${servers[server]!.endpoint}${path}`)
      return { status: res.status, body: (await res.json()) as Record<string, unknown> }
    }
    await until(
      'every count answered through the first instance',
      async () => {
        for (const [key, n] of expected) {
          const r = await get(0, `/stores/counts/keys/${encodeURIComponent(key)}`)
          if (r.status !== 200 || Number(r.body.value) !== n) return false
        }
        return true
      },
      30_000,
    )
    const owners = new Set<boolean>()
    for (const [key, n] of expected) {
      const viaB = await get(1, `/stores/counts/keys/${encodeURIComponent(key)}`)
      expect([viaB.status, Number(viaB.body.value)]).toEqual([200, n])
      owners.add(a.metadataForKey('counts', key, Serdes.string()).local)
    }
    expect(owners).toEqual(new Set([true, false])) // some answers were forwarded, both ways
    const local = [(await get(0, '/stores/counts/local')).body, (await get(1, '/stores/counts/local')).body]
    expect(local.flatMap((l) => l.entries as unknown[])).toHaveLength(expected.size)
    expect((await get(0, '/stores/counts/keys/absent')).status).toBe(404)
    expect((await get(0, '/stores/nope/keys/x')).status).toBe(404)
    const meta = await get(1, `/stores/counts/metadata/${[...expected.keys()][0]!}`)
    expect(meta.status).toBe(200)
    expect(servers.map((s) => s.endpoint)).toContain(meta.body.endpoint)

    // The same endpoint serves per-task metrics: every input record counted once, no lag left.
    const texts = await Promise.all(servers.map(async (s) => (await fetch(`http://${s.endpoint}/metrics`)).text()))
    const values = (name: string) =>
      texts.flatMap((t) =>
        t
          .split('\n')
          .filter((l) => l.startsWith(`${name}{`))
          .map((l) => Number(l.slice(l.lastIndexOf(' ') + 1))),
      )
    expect(values('sluice_streams_task_process_total')).toHaveLength(6)
    expect(values('sluice_streams_task_process_total').reduce((x, y) => x + y, 0)).toBe(records.length)
    expect(values('sluice_streams_task_records_lag')).toEqual([0, 0, 0, 0, 0, 0])
    expect(texts[0]).toContain(`sluice_streams_task_process_total{application="${app}",task="0_`)
  })
})
