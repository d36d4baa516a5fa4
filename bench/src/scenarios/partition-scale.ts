/**
 * Scenario 8, partition scale on one broker: for each count N, a fresh single-broker cluster;
 * the broker's idle CPU and RSS are sampled before the topic exists (baseline) and again after
 * a topic with N partitions is created and every partition directory exists (idle with N);
 * then one producer sends with every partition active (record i to partition i % N).
 * The short mode stops at 1,000 partitions and says so.
 *
 * The load generator keeps SCALE_OUTSTANDING_SENDS send() calls of 1,000 records outstanding
 * (32, against 8 elsewhere): with records spread one per partition, what is outstanding is what
 * batches can be made of, so 8 x 1,000 records over 1,000 partitions left one-record batches and
 * measured the per-batch cost, not the broker. Kafka's perf tool is bounded only by buffer.memory;
 * 32 x ~110 KB stays well inside the producer's 32 MiB bufferBytes (BENCHMARKS.md, session 3).
 * SLUICE_BENCH_SCALE_OUTSTANDING_SENDS overrides it for a sweep.
 */
import { startBenchCluster, type BenchCluster } from '../bench-cluster.js'
import { ProcSampler, type ProcUsage } from '../proc-sampler.js'
import { runLoad } from '../run-load.js'
import { loadRow, logRow, producerConfig, wants, type BenchContext } from './context.js'

const SCALE_OUTSTANDING_SENDS = Number(process.env.SLUICE_BENCH_SCALE_OUTSTANDING_SENDS ?? 32)

async function idleUsage(cluster: BenchCluster, ms: number): Promise<ProcUsage> {
  const pid = cluster.pids.get('broker-1')!
  const sampler = new ProcSampler(new Map([['broker-1', pid]]), 500)
  await new Promise((resolve) => setTimeout(resolve, ms))
  return sampler.stop()['broker-1']!
}

export async function runPartitionScale(ctx: BenchContext): Promise<void> {
  if (!wants(ctx, '8')) return
  for (const n of ctx.mode.scalePartitions) {
    ctx.log(`partition scale: ${n.toLocaleString('en-US')} partitions (fresh 1-broker cluster)`)
    const cluster = await startBenchCluster({ brokers: 1 })
    try {
      const baseline = await idleUsage(cluster, Math.min(ctx.mode.idleMs, 2000))
      const topic = `bench-s8-${n}`
      const created = await cluster.createTopic({ name: topic, partitions: n, replicationFactor: 1 })
      const idle = await idleUsage(cluster, ctx.mode.idleMs)
      const out = await runLoad(cluster, {
        producer: producerConfig(ctx, cluster, topic, n, {
          partitioning: 'spread',
          outstandingSends: SCALE_OUTSTANDING_SENDS,
          durationMs: ctx.mode.scaleDurationMs,
          tuning: { acks: 1 },
        }),
      })
      const notes = [
        `${SCALE_OUTSTANDING_SENDS} send() calls of 1,000 records outstanding`,
        `idle after creating ${n} partitions: CPU ${idle.cpuPercent} % of a core, RSS ${idle.rssLastMb} MB ` +
          `(empty broker: ${baseline.cpuPercent} %, ${baseline.rssLastMb} MB); creation: leaders after ${(created.leadersMs / 1000).toFixed(1)} s, ` +
          `every log on disk after ${(created.logsMs / 1000).toFixed(1)} s`,
      ]
      if (!ctx.mode.full && n === ctx.mode.scalePartitions[ctx.mode.scalePartitions.length - 1]) {
        notes.push('short mode stops at 1,000 partitions; run --full for 10,000')
      }
      const row = loadRow(
        `8/${n}`,
        `${n.toLocaleString('en-US')} partitions, all active`,
        'RF1 acks=1 spread',
        out,
        notes,
      )
      row.extra = {
        ...row.extra,
        idle,
        baseline,
        leadersMs: Math.round(created.leadersMs),
        logsMs: Math.round(created.logsMs),
      }
      ctx.rows.push(row)
      logRow(ctx, row)
    } finally {
      await cluster.stop()
    }
  }
}
