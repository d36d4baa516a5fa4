/**
 * PostgreSQL change capture through a real `sluice connect` process killed with SIGKILL while
 * transactions keep being committed (issue 18): a standalone worker runs the PostgreSQL source
 * against a spawned cluster and a real PostgreSQL; one session commits transactions of 1–20
 * inserts, updates and deletes on two tables without pause; the worker is killed mid-stream and
 * started again on the same group while the writes go on. Every committed change must be in
 * the topics; a record may come twice only if it lies after the source offset the worker had
 * stored before it died (read from connect-offsets right after the kill); per key the records
 * (first deliveries) are in commit order. The duplicates are counted and printed.
 *
 * Which records a stored offset covers: the offset names the transaction (`txId`) of its
 * record, and inside a partly stored transaction how many of its records (`event`). The one
 * writing session commits one transaction after another, so transaction ids grow in commit
 * order, and every record of an earlier transaction is covered. Heartbeats are off here: a
 * heartbeat's offset names a WAL position, not a transaction.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { connect, type ConsumerMessage, type SluiceClient } from '@sluice/client'
import {
  postgresInstalled,
  postgresSourceConfig,
  spawnCluster,
  startPostgres,
  waitFor,
  type PostgresHandle,
  type SpawnedCluster,
} from '@sluice/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mulberry32 } from '../src/harness/random.js'
import { killAllWorkers, killWorker, readToEnd, spawnConnectWorker, storedSourceOffset } from '../src/connect-worker.js'

const TABLES = ['accounts', 'orders'] as const
type Table = (typeof TABLES)[number]

interface StoredOffset {
  readonly lsn: number
  readonly txId?: number
  readonly lsn_partial?: number
  readonly event?: number
}

let cluster: SpawnedCluster
let client: SluiceClient
let server: PostgresHandle
let db: pg.Client
let dir: string

/**
 * The writes and what each must become: per committed transaction (in commit order) its id and
 * the ids of its records in the connector's order (`accounts/7:c:12`; a delete is `…:d` and
 * then its tombstone `…:tomb`). Keys are never reused, so every id is unique.
 */
class Writer {
  readonly txs: Array<{ xid: number; records: string[] }> = []
  private readonly live: Record<Table, number[]> = { accounts: [], orders: [] }
  private next = 1
  private v = 0
  private readonly rnd = mulberry32(18)

  /** One statement on a random table, its record ids appended to `records`. */
  private statement(records: string[]): string {
    const table = TABLES[Math.floor(this.rnd() * TABLES.length)]!
    const live = this.live[table]
    const v = ++this.v
    const r = this.rnd()
    if (live.length < 10 || r < 0.5) {
      const id = this.next++
      live.push(id)
      records.push(`${table}/${id}:c:${v}`)
      return `INSERT INTO ${table} (id, v, note) VALUES (${id}, ${v}, 'n${v}')`
    }
    if (r < 0.85) {
      const id = live[Math.floor(this.rnd() * live.length)]!
      records.push(`${table}/${id}:u:${v}`)
      return `UPDATE ${table} SET v = ${v}, note = 'u${v}' WHERE id = ${id}`
    }
    const id = live.splice(Math.floor(this.rnd() * live.length), 1)[0]!
    records.push(`${table}/${id}:d`, `${table}/${id}:tomb`)
    return `DELETE FROM ${table} WHERE id = ${id}`
  }

  /** Commits one transaction of 1–20 statements and notes it with its transaction id. */
  async commit(): Promise<void> {
    const records: string[] = []
    const stmts = Array.from({ length: 1 + Math.floor(this.rnd() * 20) }, () => this.statement(records))
    const results = (await db.query(
      `BEGIN; ${stmts.join('; ')}; SELECT txid_current() AS xid; COMMIT`,
    )) as unknown as pg.QueryResult[]
    const xid = Number(results.find((r) => r.command === 'SELECT')!.rows[0].xid)
    this.txs.push({ xid, records })
  }
}

/** The id of a captured record, in the Writer's terms (`r` for a snapshot row). */
function recordId(table: Table, m: ConsumerMessage): string {
  const key = JSON.parse(m.key!.toString()).payload.id as number
  if (m.value === null) return `${table}/${key}:tomb`
  const p = JSON.parse(m.value.toString()).payload
  if (p.op === 'd') return `${table}/${key}:d`
  if (p.op === 'r') return `${table}/${key}:r`
  return `${table}/${key}:${p.op}:${p.after.v}`
}

beforeAll(async () => {
  if (!postgresInstalled()) return
  cluster = await spawnCluster({ brokers: 1 })
  client = await connect({
    bootstrap: cluster.bootstrap,
    retry: { retries: 20, initialBackoffMs: 100, maxBackoffMs: 1000 },
  })
  server = await startPostgres()
  await server.psql('CREATE DATABASE shop')
  db = new pg.Client({ connectionString: server.url('shop') })
  await db.connect()
  for (const t of TABLES) await db.query(`CREATE TABLE ${t} (id int PRIMARY KEY, v int, note text)`)
  dir = await mkdtemp(path.join(tmpdir(), 'sluice-connect-pg-crash-'))
}, 120_000)

afterAll(async () => {
  killAllWorkers()
  await db?.end().catch(() => {})
  await client?.close().catch(() => {})
  await cluster?.stop()
  await server?.stop()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

describe.runIf(postgresInstalled())('PostgreSQL change capture in a worker killed mid-stream', () => {
  it('loses no committed change after SIGKILL and a restart, and repeats only records after the stored offset', async () => {
    // Rows before the connector starts: the snapshot (op r).
    const snapshot: string[] = []
    for (const t of TABLES) {
      await db.query(`INSERT INTO ${t} (id, v, note) SELECT g, 0, 's' FROM generate_series(100000, 100019) g`)
      for (let id = 100000; id < 100020; id++) snapshot.push(`${t}/${id}:r`)
    }
    // The REST body's shape, which `--standalone` reads too.
    const connectorFile = path.join(dir, 'shop-cdc.json')
    await writeFile(
      connectorFile,
      JSON.stringify({
        name: 'shop-cdc',
        config: postgresSourceConfig(server, 'shop', 'shop', {
          'table.include.list': 'public\\.(accounts|orders)',
          'heartbeat.interval.ms': '0',
          'topic.creation.default.partitions': '3',
          // Small polls: many stored offsets, so the kill lands between them.
          'max.batch.size': '50',
        }),
      }),
    )
    const start = () => spawnConnectWorker(cluster.bootstrap, 'e2e-pg-crash', ['--standalone', connectorFile])
    const first = await start()
    const stored = () => storedSourceOffset<StoredOffset & { snapshot_completed?: boolean }>(client, 'shop-cdc')
    await waitFor(async () => (await stored())?.snapshot_completed === true, {
      timeoutMs: 60_000,
      description: 'the snapshot read and its offset stored',
    })

    // One session commits transactions back to back for the whole test.
    const writer = new Writer()
    let writing = true
    const writes = (async () => {
      while (writing) await writer.commit()
    })()
    const committed = (n: number, description: string) =>
      waitFor(() => writer.txs.length >= n, { timeoutMs: 60_000, description })
    await committed(100, '100 transactions committed')
    // Kill it as soon as offsets of recent transactions are stored: more are in flight.
    const target = writer.txs[writer.txs.length - 1]!.xid
    await waitFor(async () => ((await stored())?.txId ?? 0) >= target, {
      timeoutMs: 60_000,
      intervalMs: 5,
      description: 'an offset of a recent transaction stored',
    })
    await killWorker(first)
    const last = (await stored())!
    const killedAt = writer.txs.length
    await committed(killedAt + 100, '100 transactions committed while the worker is dead')
    const second = await start()
    await committed(writer.txs.length + 100, '100 transactions committed after the restart')
    writing = false
    await writes

    const expected = [...snapshot, ...writer.txs.flatMap((t) => t.records)]
    const want = new Set(expected)
    expect(want.size).toBe(expected.length)
    const got = await waitFor(
      async () => {
        const ids: string[] = []
        for (const t of TABLES) for (const m of await readToEnd(client, `shop.public.${t}`)) ids.push(recordId(t, m))
        const have = new Set(ids)
        return expected.every((id) => have.has(id)) ? ids : undefined
      },
      { timeoutMs: 120_000, intervalMs: 500, description: `all ${expected.length} records in the topics` },
    )
    expect(second.child.exitCode).toBeNull()

    // What the stored offset covers: the snapshot, every transaction before its txId, and of its
    // own transaction all records (a whole one) or the first `event`.
    const at = writer.txs.findIndex((t) => t.xid === last.txId)
    expect(at, `the stored txId ${last.txId} is one of the writer's`).toBeGreaterThanOrEqual(0)
    const covered = new Set(snapshot)
    for (const t of writer.txs.slice(0, at)) for (const id of t.records) covered.add(id)
    const own = writer.txs[at]!.records
    for (const id of last.lsn_partial === undefined ? own : own.slice(0, last.event)) covered.add(id)

    const counts = new Map<string, number>()
    for (const id of got) counts.set(id, (counts.get(id) ?? 0) + 1)
    let repeated = 0
    for (const [id, n] of counts) {
      expect(want.has(id), `${id} was never written`).toBe(true)
      if (covered.has(id)) expect(n, `${id} is covered by the stored offset`).toBe(1)
      else expect(n, id).toBeLessThanOrEqual(2)
      if (n > 1) repeated += n - 1
    }
    // Per key, the first delivery of each record is in commit order.
    const firstSeen = new Map<string, string[]>()
    const seen = new Set<string>()
    for (const id of got) {
      if (seen.has(id)) continue
      seen.add(id)
      const key = id.slice(0, id.indexOf(':'))
      firstSeen.set(key, [...(firstSeen.get(key) ?? []), id])
    }
    const inOrder = new Map<string, string[]>()
    for (const id of expected) {
      const key = id.slice(0, id.indexOf(':'))
      inOrder.set(key, [...(inOrder.get(key) ?? []), id])
    }
    for (const [key, ids] of inOrder) expect({ key, ids: firstSeen.get(key) }).toEqual({ key, ids })
    console.log(
      `PostgreSQL SIGKILL mid-stream: ${writer.txs.length} transactions, ${expected.length} records; the stored offset ` +
        `covered ${covered.size} (transaction ${at + 1} of ${writer.txs.length}${last.lsn_partial === undefined ? '' : `, ${last.event} of its ${own.length} records`}); ` +
        `${repeated} records after it were delivered twice, ${got.length} records read in all`,
    )
  }, 240_000)
})
