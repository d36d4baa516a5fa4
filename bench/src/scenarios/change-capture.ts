/**
 * Scenario 11, change capture (issue 18): PostgreSQL 15 (testkit's startPostgres, with
 * `synchronous_commit=on` and `fsync=on`, a real server's defaults) into Sluice through a
 * `sluice connect` process (the built CLI, standalone worker, log level warn) running the
 * PostgreSQL source on one broker (RF1), JSON converter with schemas (the default):
 *   11/snapshot  N rows present before the connector is created, read by its initial snapshot;
 *   11/stream    N rows committed (100 per transaction) into the WAL after the slot was made and
 *                before the connector is created (`snapshot.mode=no_data`): the streaming path;
 *   11/latency   single-row commits at a fixed rate once the connector streams: from
 *                PostgreSQL's commit time (`source.ts_ms`, whole milliseconds) to the record
 *                being read by a consumer in the bench process.
 * The rates count from the POST that creates the connector (the task's start, slot and
 * snapshot set-up included) to the N-th record read from the topic, and also from the first
 * record to the N-th (the steady rate). The worker's CPU is sampled from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import type { SluiceClient } from '@sluice/client'
import {
  connectRest,
  postgresInstalled,
  postgresSourceConfig,
  startPostgres,
  waitFor,
  type PostgresHandle,
} from '@sluice/testkit'
import { startBenchCluster } from '../bench-cluster.js'
import { registerChild } from '../children.js'
import { newHistogram, recordUs, summarize } from '../histogram.js'
import { ProcSampler, type ProcUsage } from '../proc-sampler.js'
import type { ScenarioRow } from '../results.js'
import { logRow, notePids, wants, type BenchContext } from './context.js'

const CLI = fileURLToPath(new URL('../../../packages/cli/dist/bin.js', import.meta.url))
const PAYLOAD = 'x'.repeat(100)
/** Single-row commits per second in 11/latency: modest, so the figure is latency, not queueing. */
const LATENCY_RATE = 50

interface ConnectProcess {
  readonly child: ChildProcess
  readonly url: string
}

export async function runChangeCapture(ctx: BenchContext): Promise<void> {
  if (!['11'].some((id) => wants(ctx, id))) return
  if (!postgresInstalled()) {
    ctx.log('change capture (scenario 11): skipped, PostgreSQL is not installed (apt-get install postgresql)')
    return
  }
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`pnpm build\` first`)
  const rows = ctx.mode.full ? 100_000 : 20_000
  const latencyMs = ctx.mode.full ? 60_000 : 15_000
  ctx.log(
    `change capture (scenario 11): PostgreSQL 15 (synchronous_commit=on, fsync=on) -> sluice connect -> 1 broker; ` +
      `${rows.toLocaleString('en-US')} rows of ~120 bytes; latency at ${LATENCY_RATE} commits/s for ${latencyMs / 1000} s`,
  )
  const cluster = await startBenchCluster({ brokers: 1 })
  notePids(ctx, 'cdc cluster:', cluster.pids)
  const server = await startPostgres({ settings: { synchronous_commit: 'on', fsync: 'on' } })
  let worker: ConnectProcess | undefined
  try {
    for (const db of ['snap', 'stream', 'lat']) await server.psql(`CREATE DATABASE ${db}`)
    worker = await startWorker(cluster.bootstrap)
    notePids(ctx, 'cdc:', [['connect', worker.child.pid!]])
    const pids = new Map([...cluster.pids, ['connect', worker.child.pid!]])

    // 11/snapshot: the rows are there before the connector.
    const snap = await database(server, 'snap')
    await fillRows(snap, rows)
    await snap.end()
    const snapshot = await measureBacklog(cluster.admin, worker, pids, server, 'snap', rows, {})
    push(ctx, '11/snapshot', 'change capture: initial snapshot of a table', rows, snapshot)

    // 11/stream: a WAL backlog. The publication exists before the changes (decoding reads it
    // as of each change), and the slot is made before them, so they are all after its start.
    const stream = await database(server, 'stream')
    await stream.query('CREATE TABLE rows (id int PRIMARY KEY, v bigint, payload text)')
    await stream.query('CREATE PUBLICATION bench_stream FOR TABLE rows')
    await stream.query("SELECT pg_create_logical_replication_slot('bench_stream', 'pgoutput')")
    await fillRows(stream, rows, { tableExists: true })
    await stream.end()
    const streamed = await measureBacklog(cluster.admin, worker, pids, server, 'stream', rows, {
      'snapshot.mode': 'no_data',
      'slot.name': 'bench_stream',
      'publication.name': 'bench_stream',
    })
    push(ctx, '11/stream', 'change capture: a WAL backlog (100-row transactions)', rows, streamed)

    await measureLatency(ctx, cluster.admin, worker, pids, server, latencyMs)
  } finally {
    worker?.child.kill('SIGKILL')
    await cluster.stop()
    await server.stop()
  }
}

async function startWorker(bootstrap: readonly string[]): Promise<ConnectProcess> {
  const child = spawn(
    process.execPath,
    [
      CLI,
      '--bootstrap',
      bootstrap.join(','),
      '--json',
      'connect',
      '--group-id',
      'bench-cdc',
      '--rest-port',
      '0',
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  registerChild(child)
  const lines: string[] = []
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l))
  createInterface({ input: child.stderr! }).on('line', (l) => lines.push(l))
  const line = await waitFor(
    () => lines.find((l) => l.startsWith('{"url"')) ?? (child.exitCode !== null ? 'exited' : undefined),
    { timeoutMs: 60_000, description: 'sluice connect printed its URL' },
  )
  if (line === 'exited') throw new Error(`sluice connect exited:\n${lines.join('\n')}`)
  return { child, url: (JSON.parse(line) as { url: string }).url }
}

async function database(server: PostgresHandle, name: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: server.url(name) })
  await c.connect()
  return c
}

/** N rows in transactions of 100 (a table `rows` made first unless it exists). */
async function fillRows(c: pg.Client, n: number, options: { tableExists?: boolean } = {}): Promise<void> {
  if (options.tableExists !== true) await c.query('CREATE TABLE rows (id int PRIMARY KEY, v bigint, payload text)')
  for (let i = 0; i < n; i += 100)
    await c.query('INSERT INTO rows SELECT g, g, $1 FROM generate_series($2::int, $3::int) g', [
      PAYLOAD,
      i,
      Math.min(n, i + 100) - 1,
    ])
}

interface BacklogResult {
  readonly fromCreateMs: number
  readonly fromFirstMs: number
  readonly usage: Record<string, ProcUsage>
}

/** Creates the connector on database `db` and times it until `rows` records are read back. */
async function measureBacklog(
  admin: SluiceClient,
  worker: ConnectProcess,
  pids: ReadonlyMap<string, number>,
  server: PostgresHandle,
  db: string,
  rows: number,
  config: Record<string, string>,
): Promise<BacklogResult> {
  const topic = `${db}.public.rows`
  await admin.admin().createTopics([{ name: topic, numPartitions: 3, replicationFactor: 1 }])
  const consumer = admin.consumer({ offsetReset: 'earliest', maxWaitMs: 100 })
  await consumer.assign([{ topic }])
  const sampler = new ProcSampler(pids)
  const created = performance.now()
  await createConnector(worker, db, server, config)
  let first = 0
  let seen = 0
  const deadline = setTimeout(() => void consumer.close(), 600_000)
  try {
    for await (const _ of consumer) {
      if (seen++ === 0) first = performance.now()
      if (seen >= rows) break
    }
  } finally {
    clearTimeout(deadline)
    await consumer.close()
  }
  const done = performance.now()
  const usage = sampler.stop()
  if (seen < rows) throw new Error(`${topic}: ${seen} of ${rows} records within 10 minutes`)
  await connectRest(worker.url, 'DELETE', `/connectors/cdc-${db}`)
  return { fromCreateMs: done - created, fromFirstMs: done - first, usage }
}

async function createConnector(
  worker: ConnectProcess,
  db: string,
  server: PostgresHandle,
  config: Record<string, string>,
): Promise<void> {
  const r = await connectRest(worker.url, 'POST', '/connectors', {
    name: `cdc-${db}`,
    config: postgresSourceConfig(server, db, db, {
      'slot.name': `bench_${db}`,
      'publication.name': `bench_${db}`,
      ...config,
    }),
  })
  if (r.status !== 201) throw new Error(`creating cdc-${db}: ${r.status} ${JSON.stringify(r.body)}`)
}

/** 11/latency: single-row commits at LATENCY_RATE per second for `durationMs`. */
async function measureLatency(
  ctx: BenchContext,
  admin: SluiceClient,
  worker: ConnectProcess,
  pids: ReadonlyMap<string, number>,
  server: PostgresHandle,
  durationMs: number,
): Promise<void> {
  const topic = 'lat.public.rows'
  const db = await database(server, 'lat')
  await db.query('CREATE TABLE rows (id int PRIMARY KEY, v bigint, payload text)')
  await admin.admin().createTopics([{ name: topic, numPartitions: 3, replicationFactor: 1 }])
  await createConnector(worker, 'lat', server, { 'snapshot.mode': 'no_data' })
  const consumer = admin.consumer({ offsetReset: 'earliest', maxWaitMs: 500 })
  await consumer.assign([{ topic }])
  const fromCommit = newHistogram()
  const fromSend = newHistogram()
  // When each INSERT (an autocommit) was sent, by id (wall clock, microseconds): a record can be
  // read before the bench sees its commit return, so the send is the client-side reference.
  const sent = new Map<number, number>()
  const nowUs = (): number => (performance.timeOrigin + performance.now()) * 1000
  const total = Math.round((durationMs / 1000) * LATENCY_RATE)
  let read = 0
  let probesRead = 0
  const reading = (async () => {
    for await (const m of consumer) {
      const at = nowUs()
      const p = JSON.parse(m.value!.toString()).payload
      const id = p.after.id as number
      if (id < 0) {
        probesRead++
        continue
      }
      recordUs(fromCommit, at - p.source.ts_ms * 1000)
      recordUs(fromSend, at - sent.get(id)!)
      if (++read >= total) break
    }
  })()
  try {
    // The connector streams once a probe row (negative ids) comes back: the measured rows are
    // steady state. Probes repeat, as one committed before the slot exists is never captured.
    let probe = 0
    await waitFor(
      async () => {
        if (probesRead > 0) return true
        await db.query('INSERT INTO rows VALUES ($1, 0, $2)', [--probe, PAYLOAD])
        return false
      },
      { timeoutMs: 60_000, intervalMs: 200, description: 'the latency connector streaming' },
    )
    const sampler = new ProcSampler(pids)
    const started = performance.now()
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / LATENCY_RATE
      const wait = due - performance.now()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      sent.set(i, nowUs())
      await db.query('INSERT INTO rows VALUES ($1, $2, $3)', [i, i, PAYLOAD])
    }
    await waitFor(() => read >= total, { timeoutMs: 60_000, description: 'every latency row read' })
    const usage = sampler.stop()
    const latency = summarize(fromCommit)
    const sendLatency = summarize(fromSend)
    const row: ScenarioRow = {
      id: '11/latency',
      title: 'change capture: PostgreSQL commit to record read by a consumer',
      setup: `RF1 3p, ${LATENCY_RATE} single-row commits/s`,
      latency,
      latencyKind: 'from source.ts_ms (PostgreSQL commit time, whole ms) to the consumer reading the record',
      usage,
      extra: { fromSend: sendLatency },
      notes: [
        `${total} commits; from the INSERT being sent (its commit included): p50 ${sendLatency.p50Ms} ms, p99 ${sendLatency.p99Ms} ms`,
        'source.ts_ms is whole milliseconds (floored): the from-commit figures read up to 1 ms high',
      ],
    }
    ctx.rows.push(row)
    logRow(ctx, row)
  } finally {
    await consumer.close()
    await reading.catch(() => {})
    await db.end()
  }
}

function push(ctx: BenchContext, id: string, title: string, rows: number, r: BacklogResult): void {
  const row: ScenarioRow = {
    id,
    title,
    setup: 'RF1 3p, sluice connect process',
    recordsPerSec: Math.round((rows * 1000) / r.fromCreateMs),
    usage: r.usage,
    extra: { fromCreateMs: Math.round(r.fromCreateMs), fromFirstMs: Math.round(r.fromFirstMs) },
    notes: [
      `${rows.toLocaleString('en-US')} rows in ${Math.round(r.fromCreateMs)} ms from the POST; ` +
        `${Math.round((rows * 1000) / r.fromFirstMs)} rows/s from the first record to the last`,
    ],
  }
  ctx.rows.push(row)
  logRow(ctx, row)
}
