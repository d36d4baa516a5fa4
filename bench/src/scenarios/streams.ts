/**
 * Scenario 10, streams (issue 17), on one broker (RF1), the application in a client worker:
 *   10/map      stateless filter + mapValues + to(), input records/s;
 *   10/count    groupByKey().count() into an in-memory store logged to its changelog, input
 *               records/s (every key distinct, so the store and its changelog grow to N);
 *   10/restore  a new instance with an empty state directory restores that store from the
 *               changelog: records/s of the restore (RestoreMetrics);
 *   10/restore-lmdb  the same changelog restored into a persistent (lmdb) store.
 * The input topic (6 partitions) is filled first with N keyed 100-byte records; each app is
 * timed from its first processed record to its N-th (the group join is not counted). Each app
 * runs in its own client worker process (workers/streams-worker.ts, the node flags of every
 * client worker), not in the bench's.
 */
import { tmpdir } from 'node:os'
import path from 'node:path'
import { mkdtemp, rm } from 'node:fs/promises'
import { startBenchCluster, type BenchCluster } from '../bench-cluster.js'
import type { ScenarioRow } from '../results.js'
import { startWorker, type StreamsWorkerConfig, type StreamsWorkerResult } from '../worker-protocol.js'
import { logRow, notePids, wants, type BenchContext } from './context.js'

const INPUT = 'bench-s10-in'
const VALUE_BYTES = 100

export async function runStreams(ctx: BenchContext): Promise<void> {
  if (!['10'].some((id) => wants(ctx, id))) return
  const records = ctx.mode.durationMs >= 30_000 ? 3_000_000 : 1_000_000
  ctx.log(
    `streams (scenario 10): 1 broker, ${records.toLocaleString('en-US')} input records, each app in its own client worker process`,
  )
  const cluster = await startBenchCluster({ brokers: 1 })
  notePids(ctx, 'streams cluster:', cluster.pids)
  const stateRoot = await mkdtemp(path.join(tmpdir(), 'sluice-bench-streams-'))
  try {
    await cluster.createTopic({ name: INPUT, partitions: 6, replicationFactor: 1 })
    await fill(cluster, records)
    await cluster.createTopic({ name: 'bench-s10-map-out', partitions: 6, replicationFactor: 1 })
    const common = { bootstrap: cluster.bootstrap, input: INPUT, records, timeoutMs: 600_000 }
    const map = await runStreamsWorker({
      ...common,
      applicationId: 'bench-s10-map',
      stateDir: path.join(stateRoot, 'map'),
      topology: 'map',
      output: 'bench-s10-map-out',
      measure: 'process',
    })
    push(ctx, '10/map', 'streams: filter + mapValues + to()', map, records)

    const count = await runStreamsWorker({
      ...common,
      applicationId: 'bench-s10-count',
      stateDir: path.join(stateRoot, 'count-1'),
      topology: 'count',
      measure: 'process',
    })
    push(ctx, '10/count', 'streams: groupByKey().count(), in-memory store + changelog', count, records)

    // A new instance with an empty state directory restores that store from the changelog.
    const restore = await runStreamsWorker({
      ...common,
      applicationId: 'bench-s10-count',
      stateDir: path.join(stateRoot, 'count-2'),
      topology: 'count',
      measure: 'restore',
    })
    push(ctx, '10/restore', 'streams: restore of the count store from its changelog', restore, restore.records)

    // The same restore into a persistent (lmdb) store: the changelog is the one above.
    const lmdb = await runStreamsWorker({
      ...common,
      applicationId: 'bench-s10-count',
      stateDir: path.join(stateRoot, 'count-3'),
      topology: 'count-lmdb',
      measure: 'restore',
    })
    push(ctx, '10/restore-lmdb', 'streams: the same restore into a persistent (lmdb) store', lmdb, lmdb.records)
  } finally {
    await cluster.stop()
    await rm(stateRoot, { recursive: true, force: true })
  }
}

function push(ctx: BenchContext, id: string, title: string, r: StreamsWorkerResult, records: number): void {
  const row: ScenarioRow = {
    id,
    title,
    setup: 'RF1 6p, app in a client worker',
    recordsPerSec: Math.round(r.recordsPerSec),
    usage: {},
    notes: [
      `${records.toLocaleString('en-US')} records${r.cpuPercent > 0 ? `; the app's process at ${r.cpuPercent} % of a core` : ''}`,
    ],
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

/** Runs one streams worker (workers/streams-worker.ts) to its result. */
async function runStreamsWorker(config: StreamsWorkerConfig): Promise<StreamsWorkerResult> {
  const worker = startWorker<StreamsWorkerResult>('streams', config)
  try {
    await worker.ready
    worker.go()
    return await worker.result
  } finally {
    worker.kill()
  }
}
