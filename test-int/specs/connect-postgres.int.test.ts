/**
 * PostgreSQL change capture on a real in-process cluster and a real PostgreSQL 15 (testkit's
 * startPostgres), the worker driven over REST as a client would: rows present before the
 * connector starts come as a snapshot (op r, the last one `last`); then 10,000 inserts,
 * updates and deletes in many transactions on three tables (with an ADD COLUMN and a TRUNCATE
 * on the way) are captured in commit order per key, and through the PostgreSQL sink into a
 * second database whose rows end equal to the source's; every customers change committed after
 * the ADD COLUMN carries the column and none before it does; the slot's confirmed LSN is the
 * stored offset's, and heartbeats move it while the captured tables are idle. Transactions of
 * concurrent sessions, interleaved and committed in a random order, come whole and in commit
 * order. Also prints the change-capture rate and commit-to-record latency it measured (the
 * figures for BENCHMARKS.md come from bench/, scenario 11).
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningConnectWorker } from '@sluice/connect'
import { postgresInstalled, postgresSourceConfig, startPostgres, type PostgresHandle } from '@sluice/testkit'
import type { ConsumerMessage } from '@sluice/client'
import { createTopicWithLeaders, readMessages, until, type RealCluster } from '../src/client/real-cluster.js'
import { startStreamsCluster } from '../src/client/streams-cluster.js'
import { type Json, startTestWorker, untilTaskRunning, workerHttp } from '../src/connect/worker-rest.js'

let cluster: RealCluster
let worker: RunningConnectWorker
const http = workerHttp(() => worker)
let server: PostgresHandle
let src: pg.Client
let dst: pg.Client

/** Rows as PostgreSQL's text, so two databases compare exactly. */
async function client(database: string): Promise<pg.Client> {
  const c = new pg.Client({
    connectionString: server.url(database),
    types: { getTypeParser: () => (v: string) => v },
  })
  await c.connect()
  return c
}

const TABLES = {
  customers: 'id',
  orders: 'id',
  items: 'order_id, line',
} as const
type Table = keyof typeof TABLES

async function rowsOf(c: pg.Client, table: Table): Promise<unknown[]> {
  return (await c.query(`SELECT * FROM ${table} ORDER BY ${TABLES[table]}`)).rows
}

const sourceConfig = (overrides: Record<string, string> = {}): Record<string, string> =>
  postgresSourceConfig(server, 'shop', 'shop', {
    'table.include.list': 'public\\.(customers|orders|items)',
    'slot.name': 'sluice_shop',
    'publication.name': 'sluice_shop',
    'heartbeat.interval.ms': '300',
    'topic.creation.default.partitions': '3',
    ...overrides,
  })

/** Creates connector `pg-<db>` capturing `<db>.public.<table>` and waits until its task runs. */
async function startSource(db: string, table: string, overrides: Record<string, string> = {}): Promise<void> {
  const created = await http('POST', '/connectors', {
    name: `pg-${db}`,
    config: sourceConfig({
      'database.dbname': db,
      'topic.prefix': db,
      'table.include.list': `public\\.${table}`,
      'slot.name': `sluice_${db}`,
      'publication.name': `sluice_${db}`,
      ...overrides,
    }),
  })
  expect(created.status).toBe(201)
  await untilTaskRunning(http, `pg-${db}`)
}

/** A seeded generator of numbers in [0, 1), so a workload replays the same. */
function seeded(seed: number): () => number {
  let s = seed
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31
    return s / 2 ** 31
  }
}

beforeAll(async () => {
  server = await startPostgres()
  await server.psql('CREATE DATABASE shop')
  await server.psql('CREATE DATABASE copy')
  src = await client('shop')
  dst = await client('copy')
  await src.query(`
    CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, balance numeric(12,2), updated timestamp, v int);
    CREATE TABLE orders (id bigint PRIMARY KEY, customer int, amount double precision, note varchar(40), data jsonb, v int);
    CREATE TABLE items (order_id bigint, line int, sku varchar(20), qty int2, flag bool, blob bytea, v int,
                        PRIMARY KEY (order_id, line));
    CREATE TABLE noise (id serial PRIMARY KEY, t text);`)
  cluster = await startStreamsCluster('sluice-connect-pg-')
  worker = await startTestWorker(cluster, 'connect-pg', { offsetFlushIntervalMs: 200 })
}, 60_000)

afterAll(async () => {
  await worker?.stop()
  await cluster?.stop()
  await src?.end().catch(() => {})
  await dst?.end().catch(() => {})
  await server?.stop()
})

/** The workload's model: each key's expected records in commit order (`c:<v>`, `u:<v>`, `d`). */
class Model {
  readonly expected = new Map<string, string[]>()
  readonly live: Record<Table, Set<string>> = { customers: new Set(), orders: new Set(), items: new Set() }
  readonly counts: Record<Table, number> = { customers: 0, orders: 0, items: 0 }
  next = { customers: 1, orders: 1, items: 1 }
  v = 0

  note(table: Table, key: string, event: string): void {
    const k = `${table}/${key}`
    this.expected.set(k, [...(this.expected.get(k) ?? []), event])
    this.counts[table] += event === 'd' ? 2 : 1 // a delete is followed by its tombstone
  }
}

function pick<T>(items: readonly T[], rnd: () => number): T {
  return items[Math.floor(rnd() * items.length)]!
}

/** SQL of one random change (and the model updated as if it committed). */
function change(m: Model, rnd: () => number, altered: boolean): string {
  const table = pick(['customers', 'orders', 'items'] as const, rnd)
  const v = ++m.v
  const live = [...m.live[table]]
  const r = rnd()
  if (live.length < 20 || r < 0.45) {
    const n = m.next[table]++
    if (table === 'customers') {
      m.live.customers.add(String(n))
      m.note(table, String(n), `c:${v}`)
      return `INSERT INTO customers (id, name, balance, updated, v${altered ? ', tier' : ''}) VALUES (${n}, 'c${n}', ${(n * 1.25).toFixed(2)}, '2024-01-01 00:00:00.${String(v).padStart(6, '0')}', ${v}${altered ? ", 'gold'" : ''})`
    }
    if (table === 'orders') {
      m.live.orders.add(String(n))
      m.note(table, String(n), `c:${v}`)
      return `INSERT INTO orders VALUES (${n}, ${n % 50}, ${n / 8}, 'note ${n}', '{"n": ${n}, "tags": ["a"]}', ${v})`
    }
    const key = `${n},${n % 3}`
    m.live.items.add(key)
    m.note(table, key, `c:${v}`)
    return `INSERT INTO items VALUES (${n}, ${n % 3}, 'sku-${n}', ${n % 100}, ${n % 2 === 0}, '\\x${(n % 256).toString(16).padStart(2, '0')}ff', ${v})`
  }
  const key = pick(live, rnd)
  const where = table === 'items' ? `order_id = ${key.split(',')[0]} AND line = ${key.split(',')[1]}` : `id = ${key}`
  if (r < 0.8) {
    m.note(table, key, `u:${v}`)
    if (table === 'customers')
      return `UPDATE customers SET balance = balance + 1, v = ${v}${altered ? ", tier = 'silver'" : ''} WHERE ${where}`
    if (table === 'orders') return `UPDATE orders SET amount = amount * 2, note = 'upd ${v}', v = ${v} WHERE ${where}`
    return `UPDATE items SET qty = qty + 1, flag = NOT flag, v = ${v} WHERE ${where}`
  }
  m.live[table].delete(key)
  m.note(table, key, 'd')
  return `DELETE FROM ${table} WHERE ${where}`
}

function keyOf(table: Table, msg: ConsumerMessage): string {
  const key = JSON.parse(msg.key!.toString('utf8')).payload
  return table === 'items' ? `${key.order_id},${key.line}` : String(key.id)
}

describe.runIf(postgresInstalled())('PostgreSQL change capture', () => {
  it('refuses a bad connector config with a 400 naming the field', async () => {
    const bad = await http('POST', '/connectors', {
      name: 'pg-bad',
      config: sourceConfig({ 'snapshot.mode': 'sometimes' }),
    })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toContain('snapshot.mode')
    const missing = await http('POST', '/connectors', {
      name: 'pg-bad',
      config: { ...sourceConfig(), 'topic.prefix': undefined },
    })
    expect(missing.status).toBe(400)
    expect(missing.body.message).toContain('topic.prefix')
    const sink = await http('POST', '/connectors', {
      name: 'pg-bad-sink',
      config: { 'connector.class': 'postgres-sink', topics: 'x', 'connection.url': 'mysql://h/db' },
    })
    expect(sink.status).toBe(400)
    expect(sink.body.message).toContain('connection.url')
    expect((await http('GET', '/connectors')).body).toEqual([])
  })

  it('snapshots, then captures 10,000 changes in commit order per key, and the sink copies them', async () => {
    const m = new Model()
    const rnd = seeded(18)
    // Rows before the connector starts: the snapshot.
    const before: string[] = []
    for (let i = 0; i < 300; i++) before.push(change(m, rnd, false))
    await src.query(`BEGIN; ${before.join('; ')}; COMMIT`)
    const snapshotCounts = { ...m.counts }
    const snapshotRows = { customers: m.live.customers.size, orders: m.live.orders.size, items: m.live.items.size }
    m.expected.clear()
    for (const t of Object.keys(m.counts) as Table[]) {
      m.counts[t] = snapshotRows[t]
      for (const k of m.live[t]) m.expected.set(`${t}/${k}`, ['r'])
    }
    expect(snapshotCounts.customers).toBeGreaterThan(0)

    // The tables' topics exist before the sink subscribes: a source creating them under a running
    // sink would rebalance the sink's group in the middle of the test.
    for (const t of ['customers', 'orders', 'items'])
      await createTopicWithLeaders(cluster.client, `shop.public.${t}`, 3)
    expect((await http('POST', '/connectors', { name: 'pg-src', config: sourceConfig() })).status).toBe(201)
    const sink = await http('PUT', '/connectors/pg-sink/config', {
      'connector.class': 'io.sluice.connect.postgres.PostgresSinkConnector',
      'connection.url': `jdbc:postgresql://127.0.0.1:${server.port}/copy`,
      topics: 'shop.public.customers,shop.public.orders,shop.public.items',
      'schema.evolution': 'basic',
    })
    expect(sink.status).toBe(201)
    await untilTaskRunning(http, 'pg-src')

    // 10,000 changes in transactions of 1..40 statements, one ADD COLUMN halfway, one TRUNCATE.
    const started = Date.now()
    let altered = false
    let alteredAt = -1
    let truncatedAt = -1
    while (m.v < 10_300) {
      if (!altered && m.v >= 5_300) {
        await src.query('ALTER TABLE customers ADD COLUMN tier text')
        altered = true
        alteredAt = m.v
      }
      if (truncatedAt < 0 && m.v >= 7_300) {
        // A truncate record has no key, so it lands in one partition while later rows may land
        // in others: the sink applies it exactly only once what came before is copied
        // (docs/connect.md). The test waits for that, then for the copy to be empty.
        await until(
          'the copy caught up before the truncate',
          async () => {
            return JSON.stringify(await rowsOf(dst, 'items')) === JSON.stringify(await rowsOf(src, 'items'))
          },
          30_000,
          100,
        )
        await src.query('TRUNCATE items')
        await until('the copy truncated', async () => (await rowsOf(dst, 'items')).length === 0, 30_000, 100)
        m.live.items.clear()
        m.counts.items += 1
        truncatedAt = m.v
      }
      const size = 1 + Math.floor(rnd() * 40)
      const stmts: string[] = []
      for (let i = 0; i < size && m.v < 10_300; i++) stmts.push(change(m, rnd, altered))
      await src.query(`BEGIN; ${stmts.join('; ')}; COMMIT`)
    }
    const written = Date.now()

    // Every record arrives, once, in commit order per key.
    const byTable = {} as Record<Table, ConsumerMessage[]>
    for (const t of Object.keys(TABLES) as Table[]) {
      byTable[t] = await readMessages(cluster.client, `shop.public.${t}`, m.counts[t], { timeoutMs: 40_000 })
      expect(byTable[t].length).toBe(m.counts[t])
    }
    const captured = Date.now()
    const got = new Map<string, string[]>()
    const latencies: number[] = []
    let snapshotLast = 0
    let withTier = 0
    let truncates = 0
    for (const t of Object.keys(TABLES) as Table[]) {
      for (const msg of byTable[t]) {
        if (msg.value === null) continue // tombstones: counted above
        const env = JSON.parse(msg.value.toString('utf8'))
        const p = env.payload
        if (p.op === 't') {
          truncates++
          continue
        }
        const k = `${t}/${keyOf(t, msg)}`
        const event = p.op === 'r' ? 'r' : p.op === 'd' ? 'd' : `${p.op}:${p.after.v}`
        got.set(k, [...(got.get(k) ?? []), event])
        if (p.source.snapshot === 'last') snapshotLast++
        if (p.op !== 'r') latencies.push(Number(msg.timestamp) - p.source.ts_ms)
        if (t === 'customers' && (p.op === 'c' || p.op === 'u')) {
          // ADD COLUMN mid-stream: every change committed after the ALTER carries the new column
          // (its value and its schema field), and none committed before it does.
          const fields = env.schema.fields[1].fields.map((f: Json) => f.field)
          const after = p.after.v > alteredAt
          expect({ v: p.after.v, tier: p.after.tier, schema: fields.includes('tier') }).toEqual({
            v: p.after.v,
            tier: after ? (p.op === 'c' ? 'gold' : 'silver') : undefined,
            schema: after,
          })
          if (after) withTier++
        }
      }
    }
    expect(snapshotLast).toBe(1)
    expect(truncates).toBe(1)
    expect(withTier).toBeGreaterThan(100)
    for (const [k, events] of m.expected) expect({ k, events: got.get(k) }).toEqual({ k, events })
    expect(got.size).toBe(m.expected.size)

    // The sink's database ends equal to the source's.
    await until(
      'the copy equals the source',
      async () => {
        for (const t of Object.keys(TABLES) as Table[])
          if (JSON.stringify(await rowsOf(dst, t)) !== JSON.stringify(await rowsOf(src, t))) return false
        return true
      },
      30_000,
      200,
    )
    const copied = Date.now()
    latencies.sort((a, b) => a - b)
    const q = (f: number): number => latencies[Math.min(latencies.length - 1, Math.floor(f * latencies.length))]!
    console.log(
      `change capture: ${m.v - 300} changes written in ${written - started} ms; all in Sluice ${captured - started} ms after the first commit ` +
        `(${Math.round(((m.v - 300) * 1000) / (captured - started))} changes/s end to end), copy equal after ${copied - started} ms; ` +
        `commit-to-record latency p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms`,
    )

    // What the slot confirmed is the stored offset; an idle capture still moves it (heartbeats).
    const slotLsn = async (): Promise<string> =>
      (await src.query("SELECT confirmed_flush_lsn AS l FROM pg_replication_slots WHERE slot_name = 'sluice_shop'"))
        .rows[0].l
    const stored = async (): Promise<number> =>
      (await http('GET', '/connectors/pg-src/offsets')).body.offsets[0]?.offset.lsn
    const lsnNumber = (text: string): number => {
      const [hi, lo] = text.split('/')
      return Number.parseInt(hi!, 16) * 2 ** 32 + Number.parseInt(lo!, 16)
    }
    await until('the slot confirmed the stored offset', async () => lsnNumber(await slotLsn()) === (await stored()))
    for (let i = 0; i < 20; i++) await src.query(`INSERT INTO noise (t) SELECT 'x' FROM generate_series(1, 500)`)
    const walNow = lsnNumber((await src.query('SELECT pg_current_wal_lsn() AS l')).rows[0].l)
    await until(
      'a heartbeat moved the slot past the idle WAL',
      async () => lsnNumber(await slotLsn()) >= walNow,
      15_000,
      100,
    )
    const heartbeats = await readMessages(cluster.client, '__debezium-heartbeat.shop', 1, { timeoutMs: 10_000 })
    expect(JSON.parse(heartbeats[0]!.value!.toString('utf8')).payload.ts_ms).toEqual(expect.any(Number))
  }, 120_000)

  it('a task restarted mid-stream (inside transactions) goes on after its stored offset: nothing lost, nothing twice', async () => {
    await server.psql('CREATE DATABASE bank')
    const bank = await client('bank')
    try {
      await bank.query('CREATE TABLE accounts (id int PRIMARY KEY, v int)')
      // Small polls, so a restart lands inside transactions.
      await startSource('bank', 'accounts', { 'max.batch.size': '7' })
      const expected = new Map<number, string[]>()
      const live: number[] = []
      let v = 0
      let next = 1
      const random = seeded(7)
      let records = 0
      const tx = async (): Promise<void> => {
        const stmts: string[] = []
        const size = 1 + Math.floor(random() * 30)
        for (let i = 0; i < size; i++) {
          v++
          if (live.length < 10 || random() < 0.5) {
            const id = next++
            live.push(id)
            expected.set(id, [`c:${v}`])
            stmts.push(`INSERT INTO accounts VALUES (${id}, ${v})`)
            records++
          } else if (random() < 0.75) {
            const id = live[Math.floor(random() * live.length)]!
            expected.get(id)!.push(`u:${v}`)
            stmts.push(`UPDATE accounts SET v = ${v} WHERE id = ${id}`)
            records++
          } else {
            const id = live.splice(Math.floor(random() * live.length), 1)[0]!
            expected.get(id)!.push('d')
            stmts.push(`DELETE FROM accounts WHERE id = ${id}`)
            records += 2
          }
        }
        await bank.query(`BEGIN; ${stmts.join('; ')}; COMMIT`)
      }
      for (let i = 0; i < 60; i++) await tx()
      // Streaming has stored an offset (before that a restart reads the snapshot again, which
      // would fold the history into the rows' current state), then more changes, and the
      // restart lands while they are being captured.
      await until(
        'a stored offset',
        async () => (await http('GET', '/connectors/pg-bank/offsets')).body.offsets.length > 0,
      )
      for (let i = 0; i < 30; i++) await tx()
      expect((await http('POST', '/connectors/pg-bank/restart?includeTasks=true')).status).toBeLessThan(300)
      for (let i = 0; i < 30; i++) await tx()
      await untilTaskRunning(http, 'pg-bank')
      for (let i = 0; i < 20; i++) await tx()

      let got: ConsumerMessage[] = []
      await until(
        'every bank record',
        async () => {
          got = await readMessages(cluster.client, 'bank.public.accounts', records + 1000, { timeoutMs: 1500 })
          return got.length >= records
        },
        30_000,
        0,
      )
      const events = new Map<number, string[]>()
      for (const msg of got) {
        if (msg.value === null) continue
        const p = JSON.parse(msg.value.toString('utf8')).payload
        const id = JSON.parse(msg.key!.toString('utf8')).payload.id as number
        events.set(id, [...(events.get(id) ?? []), p.op === 'd' ? 'd' : `${p.op}:${p.after.v}`])
      }
      expect(got.length).toBe(records)
      for (const [id, list] of expected) expect({ id, list: events.get(id) }).toEqual({ id, list })
    } finally {
      await bank.end()
    }
  }, 60_000)

  it('emits interleaved transactions in commit order, not statement order (one partition, concurrent sessions)', async () => {
    await server.psql('CREATE DATABASE ledger')
    const sessions = await Promise.all([1, 2, 3, 4].map(() => client('ledger')))
    try {
      await sessions[0]!.query('CREATE TABLE entries (id int PRIMARY KEY, v int)')
      // One partition: the topic's whole order is the order to check, not only each key's.
      await createTopicWithLeaders(cluster.client, 'ledger.public.entries', 1)
      await startSource('ledger', 'entries')
      const rnd = seeded(11)
      // The hot row every round's first and last committer update: the last one's UPDATE waits
      // on the first one's row lock, so per key the order is decided by the commits.
      await sessions[0]!.query('INSERT INTO entries VALUES (0, 0)')
      const expected: string[] = ['c:0']
      let v = 0
      let nextId = 1
      for (let round = 0; round < 40; round++) {
        // Four transactions open at once, their statements interleaved, committed in a random
        // order: each transaction's records must come whole, in the order of the commits.
        const order = [0, 1, 2, 3].sort(() => rnd() - 0.5)
        const [first, last] = [order[0]!, order[3]!]
        const stmts: string[][] = [[], [], [], []]
        for (const s of sessions) await s.query('BEGIN')
        for (let step = 0; step < 3; step++) {
          for (let i = 0; i < 4; i++) {
            const id = nextId++
            stmts[i]!.push(`c:${++v}`)
            await sessions[i]!.query(`INSERT INTO entries VALUES (${id}, ${v})`)
            if (step === 1 && i === first) {
              stmts[i]!.push(`u:${++v}`)
              await sessions[i]!.query(`UPDATE entries SET v = ${v} WHERE id = 0`)
            }
          }
        }
        stmts[last]!.push(`u:${++v}`)
        const blocked = sessions[last]!.query(`UPDATE entries SET v = ${v} WHERE id = 0`)
        for (const i of order) {
          if (i === last) await blocked
          await sessions[i]!.query('COMMIT')
          expected.push(...stmts[i]!)
        }
      }
      const got = await readMessages(cluster.client, 'ledger.public.entries', expected.length, { timeoutMs: 30_000 })
      const seen = got.map((msg) => {
        const p = JSON.parse(msg.value!.toString('utf8')).payload
        return { event: `${p.op}:${p.after.v}`, txId: p.source.txId as number }
      })
      expect(seen.map((e) => e.event)).toEqual(expected)
      // Each transaction's records are contiguous: a txId never comes back once another began.
      const done = new Set<number>()
      for (let i = 1; i < seen.length; i++)
        if (seen[i]!.txId !== seen[i - 1]!.txId) {
          done.add(seen[i - 1]!.txId)
          expect(done.has(seen[i]!.txId)).toBe(false)
        }
    } finally {
      for (const s of sessions) await s.end().catch(() => {})
    }
  }, 60_000)

  it('refuses a replication slot of another database instead of taking it from its connector', async () => {
    await server.psql('CREATE DATABASE other')
    await server.psql('CREATE TABLE t (id int PRIMARY KEY)', 'other')
    // Another connector's slot, on database shop, under the name this one is (mis)configured with.
    await src.query("SELECT pg_create_logical_replication_slot('held_by_shop', 'pgoutput')")
    try {
      const created = await http('POST', '/connectors', {
        name: 'pg-other',
        config: sourceConfig({
          'database.dbname': 'other',
          'topic.prefix': 'other',
          'table.include.list': 'public\\.t',
          'slot.name': 'held_by_shop',
          'publication.name': 'sluice_other',
        }),
      })
      expect(created.status).toBe(201)
      let trace = ''
      await until('the task failed', async () => {
        const task = (await http('GET', '/connectors/pg-other/status')).body.tasks?.[0]
        trace = task?.trace ?? ''
        return task?.state === 'FAILED'
      })
      expect(trace).toContain('slot.name: replication slot held_by_shop belongs to database shop, not other')
      const slot = await src.query("SELECT database FROM pg_replication_slots WHERE slot_name = 'held_by_shop'")
      expect(slot.rows).toEqual([{ database: 'shop' }])
      expect((await http('DELETE', '/connectors/pg-other')).status).toBe(204)
    } finally {
      await src.query("SELECT pg_drop_replication_slot('held_by_shop')")
    }
  })
})
