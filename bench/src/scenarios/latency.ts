/**
 * End-to-end latency at a fixed rate (scenario 6, and the latency half of scenario 9): a
 * consumer is assigned at the end of the topic, then a producer sends `ratePerSec` records/s
 * (acks=all, lingerMs 0) whose values carry their intended send time; the consumer records
 * arrival minus intended time (coordinated omission corrected) in an HDR histogram.
 */
import type { BenchCluster } from '../bench-cluster.js'
import type { ScenarioRow } from '../results.js'
import { runLoad } from '../run-load.js'
import { consumerConfig, loadRow, noteLoad, producerConfig, profileFlags, type BenchContext } from './context.js'

export const LATENCY_RATE = 10_000

export async function runLatency (ctx: BenchContext, cluster: BenchCluster, topic: string, id: string, title: string,
  setup: string, durationMs = ctx.mode.latencyDurationMs): Promise<ScenarioRow> {
  const out = await runLoad(cluster, {
    producer: producerConfig(ctx, cluster, topic, 6, {
      mode: 'rate',
      ratePerSec: LATENCY_RATE,
      warmupMs: ctx.mode.latencyWarmupMs,
      durationMs,
      tuning: { acks: 'all', lingerMs: 0 },
    }),
    consumer: consumerConfig(cluster, topic, { from: 'end', latency: true, warmupMs: ctx.mode.latencyWarmupMs, maxWaitMs: 500 }),
    producerFlags: profileFlags(ctx),
    consumerFlags: profileFlags(ctx),
  })
  noteLoad(ctx, `scenario ${id}`, out)
  const p = out.producer
  const notes = [
    `rate ${LATENCY_RATE.toLocaleString('en-US')} rec/s intended; producer ack latency from intended time p50 ${p?.ackLatency.p50Ms ?? '-'} / p99 ${p?.ackLatency.p99Ms ?? '-'} / p99.9 ${p?.ackLatency.p999Ms ?? '-'} ms`,
  ]
  const row = loadRow(id, title, setup, out, notes)
  row.recordsPerSec = out.consumer?.recordsPerSec
  row.mbPerSec = out.consumer?.mbPerSec
  row.latency = out.consumer?.latency
  row.latencyKind = 'produce (intended send time) to consumer delivery'
  return row
}
