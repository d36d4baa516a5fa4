/**
 * Interactive queries on a REAL in-process cluster (one metadata service, one broker, 127.0.0.1
 * port 0): a count per key over six partitions, run by two instances of one application, each
 * announcing its applicationServer. For every key both instances name the same owner, the
 * owner's store answers with the count computed from the input and the other's has nothing;
 * the two local views together hold every key once. A store that is not in the topology, or is
 * not a key-value store, is refused with StreamsError 'QUERY'.
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import type { SluiceClient } from '@sluice/client'
import { Serdes, StreamsApp, StreamsBuilder, isStreamsError } from '@sluice/streams'
import { createTopicWithLeaders, until, type RealCluster } from '../src/client/real-cluster.js'
import { quiet, startStreamsCluster } from '../src/client/streams-cluster.js'

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
  const stateDir = await mkdtemp(join(tmpdir(), 'sluice-streams-queries-state-'))
  const instance = new StreamsApp(builder.build().plan(app), {
    applicationId: app,
    client,
    stateDir,
    applicationServer: endpoint,
    commitIntervalMs: 100,
    sessionTimeoutMs: 3000,
    heartbeatIntervalMs: 100,
    logger: quiet,
  })
  onTestFinished(async () => {
    await instance.close().catch(() => {})
    await rm(stateDir, { recursive: true, force: true })
  })
  await instance.start()
  return instance
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
})
