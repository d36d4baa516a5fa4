/**
 * Global tables in the streams runtime on a REAL in-process cluster (one metadata service, one
 * broker, 127.0.0.1 port 0): a stream of orders (4 partitions) joined with a global table of
 * products (3 partitions: no co-partitioning needed), run by two instances. Each instance loads
 * the whole product topic before start() resolves, both join their own orders against it, and
 * an update (and a delete) written to the product topic after start shows up in the joins of
 * the orders that come after it. A persistent global table restarts from its checkpoint: it
 * reads only the records written while it was down.
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import type { SluiceClient } from '@sluice/client'
import { Serdes, StreamsApp, StreamsBuilder, isStreamsError } from '@sluice/streams'
import { createTopicWithLeaders, readMessages, until, type RealCluster } from '../src/client/real-cluster.js'
import { quiet, startStreamsCluster } from '../src/client/streams-cluster.js'

let cluster: RealCluster
let client: SluiceClient

beforeAll(async () => {
  cluster = await startStreamsCluster('sluice-streams-global-int-')
  client = cluster.client
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
})

interface Topics {
  app: string
  orders: string
  products: string
  enriched: string
}

async function topics(): Promise<Topics> {
  const id = randomUUID().slice(0, 8)
  const t = { app: `global-${id}`, orders: `orders-${id}`, products: `products-${id}`, enriched: `enriched-${id}` }
  await createTopicWithLeaders(client, t.orders, 4)
  await createTopicWithLeaders(client, t.products, 3)
  await createTopicWithLeaders(client, t.enriched, 4)
  return t
}

async function stateDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-streams-global-state-'))
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true })
  })
  return dir
}

/** orders (key: order id, value: product id) joined with products: `<product id>:<product>`. */
function newInstance(t: Topics, dir: string, persistent = false): StreamsApp {
  const builder = new StreamsBuilder()
  const products = builder.globalTable(t.products, {
    name: 'products',
    keySerde: Serdes.string(),
    valueSerde: Serdes.string(),
    persistent,
  })
  builder
    .stream(t.orders, { keySerde: Serdes.string(), valueSerde: Serdes.string() })
    .join(
      products,
      (_orderId, productId) => productId,
      (productId, product) => `${productId}:${product}`,
    )
    .to(t.enriched, { keySerde: Serdes.string(), valueSerde: Serdes.string() })
  const app = new StreamsApp(builder.build().plan(t.app), {
    applicationId: t.app,
    client,
    stateDir: dir,
    commitIntervalMs: 100,
    sessionTimeoutMs: 3000,
    heartbeatIntervalMs: 100,
    logger: quiet,
  })
  onTestFinished(async () => {
    await app.close().catch(() => {})
  })
  return app
}

async function produce(topic: string, records: { key: string; value: string | null }[]): Promise<void> {
  const producer = client.producer({ lingerMs: 1 })
  await producer.send({ topic, records })
  await producer.close()
}

const productIds = Array.from({ length: 30 }, (_, i) => `p${i}`)

describe('streams global tables on a real cluster', () => {
  it('joins a stream on two instances with a whole global table of another partition count, and follows its updates', async () => {
    const t = await topics()
    await produce(
      t.products,
      productIds.map((p) => ({ key: p, value: `v1-${p}` })),
    )
    const a = newInstance(t, await stateDir())
    const b = newInstance(t, await stateDir())
    await a.start()
    await b.start()
    // Loaded before start() resolved, whole on each instance (all three partitions).
    for (const app of [a, b]) {
      expect(app.store<string, string>('products').approximateNumEntries()).toBe(30)
      expect(app.store<string, string>('products').get('p17')).toBe('v1-p17')
      expect(app.metrics().restore.totalRestoredRecords).toBe(30)
    }
    await until('two tasks on each instance', () => a.metrics().tasks.length === 2 && b.metrics().tasks.length === 2)

    const round1 = Array.from({ length: 40 }, (_, i) => ({ key: `order1-${i}`, value: `p${i % 30}` }))
    await produce(t.orders, round1)
    const first = await readMessages(client, t.enriched, round1.length, { maxWaitMs: 100 })
    const joined1 = new Map(first.map((m) => [m.key!.toString(), m.value!.toString()]))
    expect(joined1).toEqual(new Map(round1.map((o) => [o.key, `${o.value}:v1-${o.value}`])))
    // Both instances joined some of the orders: each against its own copy of the table.
    expect(a.metrics().processed).toBeGreaterThan(0)
    expect(b.metrics().processed).toBeGreaterThan(0)
    expect(a.metrics().processed + b.metrics().processed).toBe(round1.length)

    // After start: every product changes, and p29 is deleted.
    await produce(t.products, [
      ...productIds.slice(0, 29).map((p) => ({ key: p, value: `v2-${p}` })),
      { key: 'p29', value: null },
    ])
    for (const app of [a, b]) {
      await until(
        'the update on the instance',
        () =>
          app.store<string, string>('products').get('p28') === 'v2-p28' &&
          app.store<string, string>('products').get('p29') === undefined,
      )
    }
    const round2 = Array.from({ length: 40 }, (_, i) => ({ key: `order2-${i}`, value: `p${i % 30}` }))
    await produce(t.orders, round2)
    // An inner join: the order of the deleted p29 has no row any more.
    const expected2 = round2.filter((o) => o.value !== 'p29')
    const all = await readMessages(client, t.enriched, round1.length + expected2.length, { maxWaitMs: 100 })
    const joined2 = new Map(
      all.filter((m) => m.key!.toString().startsWith('order2-')).map((m) => [m.key!.toString(), m.value!.toString()]),
    )
    expect(joined2).toEqual(new Map(expected2.map((o) => [o.key, `${o.value}:v2-${o.value}`])))
    await until('every order processed', () => a.metrics().processed + b.metrics().processed === 80)
    expect(a.state).toBe('running')
    expect(b.state).toBe('running')
  })

  it('restarts a persistent global table from its checkpoint, reading only what was written meanwhile', async () => {
    const t = await topics()
    await produce(
      t.products,
      productIds.map((p) => ({ key: p, value: `v1-${p}` })),
    )
    const dir = await stateDir()
    const first = newInstance(t, dir, true)
    await first.start()
    expect(first.store<string, string>('products').approximateNumEntries()).toBe(30)
    await first.close()

    await produce(t.products, [
      { key: 'p3', value: 'v2-p3' },
      { key: 'p30', value: 'v1-p30' },
    ])
    const second = newInstance(t, dir, true)
    await second.start()
    expect(second.metrics().restore.totalRestoredRecords).toBe(2)
    expect(second.store<string, string>('products').approximateNumEntries()).toBe(31)
    expect(second.store<string, string>('products').get('p3')).toBe('v2-p3')
    expect(second.store<string, string>('products').get('p4')).toBe('v1-p4')
  })

  it('refuses to start when the topic of a global table does not exist', async () => {
    const t = await topics()
    const app = newInstance({ ...t, products: `missing-${t.products}` }, await stateDir())
    let caught: unknown
    await app.start().catch((e: unknown) => {
      caught = e
    })
    expect(isStreamsError(caught, 'TOPOLOGY')).toBe(true)
    expect(app.state).toBe('failed')
  })
})
