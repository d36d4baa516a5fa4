/**
 * Scenario 10, streams (issue 17), on one broker (RF1), the application in this process:
 *   10/map      stateless filter + mapValues + to(), input records/s;
 *   10/count    groupByKey().count() into an in-memory store logged to its changelog, input
 *               records/s (every key distinct, so the store and its changelog grow to N);
 *   10/restore  a new instance with an empty state directory restores that store from the
 *               changelog: records/s of the restore (RestoreMetrics).
 * The input topic (6 partitions) is filled first with N keyed 100-byte records; each app is
 * timed from its first processed record to its N-th (the group join is not counted).
 */
import { tmpdir } from 'node:os'
import path from 'node:path'
import { mkdtemp, rm } from 'node:fs/promises'
import { Serdes, StreamsApp, StreamsBuilder } from '@sluice/streams'
import { startBenchCluster, type BenchCluster } from '../bench-cluster.js'
import type { ScenarioRow } from '../results.js'
import { logRow, notePids, wants, type BenchContext } from './context.js'

const INPUT = 'bench-s10-in'
const VALUE_BYTES = 100

export async function runStreams(ctx: BenchContext): Promise<void> {
  if (!['10'].some((id) => wants(ctx, id))) return
  const records = ctx.mode.durationMs >= 30_000 ? 3_000_000 : 1_000_000
  ctx.log(`streams (scenario 10): 1 broker, ${records.toLocaleString('en-US')} input records, the app in this process`)
  const cluster = await startBenchCluster({ brokers: 1 })
  notePids(ctx, 'streams cluster:', cluster.pids)
  const stateRoot = await mkdtemp(path.join(tmpdir(), 'sluice-bench-streams-'))
  try {
    await cluster.createTopic({ name: INPUT, partitions: 6, replicationFactor: 1 })
    await fill(cluster, records)
    const map = new StreamsBuilder()
    map
      .stream(INPUT, { keySerde: Serdes.string(), valueSerde: Serdes.string() })
      .filter((_k, v) => v.length > 0)
      .mapValues((v) => v.slice(0, 20))
      .to('bench-s10-map-out', { keySerde: Serdes.string(), valueSerde: Serdes.string() })
    await cluster.createTopic({ name: 'bench-s10-map-out', partitions: 6, replicationFactor: 1 })
    const mapRate = await timeProcessing(cluster, map, 'bench-s10-map', path.join(stateRoot, 'map'), records)
    push(ctx, '10/map', 'streams: filter + mapValues + to()', mapRate, records)

    const countTopology = (): StreamsBuilder => {
      const b = new StreamsBuilder()
      b.stream(INPUT, { keySerde: Serdes.string(), valueSerde: Serdes.string() }).groupByKey().count({ name: 'counts' })
      return b
    }
    const countRate = await timeProcessing(
      cluster,
      countTopology(),
      'bench-s10-count',
      path.join(stateRoot, 'count-1'),
      records,
    )
    push(ctx, '10/count', 'streams: groupByKey().count(), in-memory store + changelog', countRate, records)

    const restore = await timeRestore(cluster, countTopology(), 'bench-s10-count', path.join(stateRoot, 'count-2'))
    push(ctx, '10/restore', 'streams: restore of the count store from its changelog', restore.rate, restore.records)
  } finally {
    await cluster.stop()
    await rm(stateRoot, { recursive: true, force: true })
  }
}

function push(ctx: BenchContext, id: string, title: string, recordsPerSec: number, records: number): void {
  const row: ScenarioRow = {
    id,
    title,
    setup: 'RF1 6p, app in the bench process',
    recordsPerSec: Math.round(recordsPerSec),
    usage: {},
    notes: [`${records.toLocaleString('en-US')} records`],
  }
  ctx.rows.push(row)
  logRow(ctx, row)
}

/** N records, key `k<i>` (all distinct), a 100-byte value. */
async function fill(cluster: BenchCluster, n: number): Promise<void> {
  const producer = cluster.admin.producer({ acks: 1, lingerMs: 5 })
  const filler = 'x'.repeat(VALUE_BYTES - 12)
  const chunk = 5000
  try {
    const inflight: Promise<unknown>[] = []
    for (let i = 0; i < n; i += chunk) {
      const records = Array.from({ length: Math.min(chunk, n - i) }, (_, j) => ({
        key: `k${i + j}`,
        value: `${String(i + j).padStart(12, '0')}${filler}`,
      }))
      inflight.push(producer.send({ topic: INPUT, records }))
      if (inflight.length >= 8) await inflight.shift()
    }
    await Promise.all(inflight)
  } finally {
    await producer.close()
  }
}

/** Input records/s from the first processed record to the n-th. */
async function timeProcessing(
  cluster: BenchCluster,
  builder: StreamsBuilder,
  applicationId: string,
  stateDir: string,
  n: number,
): Promise<number> {
  const app = new StreamsApp(builder.build(), {
    applicationId,
    bootstrap: cluster.bootstrap,
    stateDir,
    commitIntervalMs: 1000,
  })
  await app.start()
  try {
    let firstAt: number | undefined
    const deadline = Date.now() + 600_000
    for (;;) {
      const processed = app.metrics().processed
      if (processed > 0 && firstAt === undefined) firstAt = performance.now()
      if (processed >= n) return (n / (performance.now() - (firstAt ?? performance.now()))) * 1000
      if (Date.now() > deadline) throw new Error(`${applicationId} processed ${processed} of ${n} records in time`)
      await new Promise((r) => setTimeout(r, 20))
    }
  } finally {
    await app.close()
  }
}

/** The restore a new instance with an empty state directory runs for the same application. */
async function timeRestore(
  cluster: BenchCluster,
  builder: StreamsBuilder,
  applicationId: string,
  stateDir: string,
): Promise<{ rate: number; records: number }> {
  const app = new StreamsApp(builder.build(), { applicationId, bootstrap: cluster.bootstrap, stateDir })
  await app.start()
  try {
    const deadline = Date.now() + 600_000
    for (;;) {
      const r = app.metrics().restore
      if (r.restores > 0 && !r.active) return { rate: r.recordsPerSecond, records: r.totalRestoredRecords }
      if (Date.now() > deadline) throw new Error(`${applicationId}: the restore did not end in time`)
      await new Promise((res) => setTimeout(res, 20))
    }
  } finally {
    await app.close()
  }
}
