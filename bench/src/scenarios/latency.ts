/**
 * End-to-end latency at a fixed rate (scenario 6, and the latency half of scenario 9): a
 * consumer is assigned at the end of the topic, then a producer sends `ratePerSec` records/s
 * (acks=all, lingerMs 0, maxInFlight 1) whose values carry their intended send time; the consumer
 * records arrival minus intended time (coordinated omission corrected) in an HDR histogram.
 *
 * Why maxInFlight 1 (measured, BENCHMARKS.md "Scenario 6 and the cost of a wake-up"): with lingerMs
 * 0 every send() becomes a request as long as a slot is free, so with 5 in flight the producer
 * turns 10,000 records/s into as many small requests as the CPU allows, every request wakes four
 * more processes, and the five processes saturate the two cores (p50 ~44 ms). With one request per
 * broker in flight, batches grow with the round trip instead (p50 ~17–22 ms on the same machine).
 * SLUICE_BENCH_LATENCY_TUNING (JSON) overrides these fields for a sweep.
 */
import type { BenchCluster } from '../bench-cluster.js'
import type { ScenarioRow } from '../results.js'
import { runLoad, type LoadSpec } from '../run-load.js'
import type { BenchClient, ProducerTuning } from '../worker-protocol.js'
import { consumerConfig, loadRow, noteLoad, producerConfig, profileFlags, type BenchContext } from './context.js'

export const LATENCY_RATE = 10_000

export const LATENCY_TUNING: Partial<ProducerTuning> = {
  acks: 'all',
  lingerMs: 0,
  maxInFlight: 1,
  ...(JSON.parse(process.env.SLUICE_BENCH_LATENCY_TUNING ?? '{}') as Partial<ProducerTuning>),
}

/** Scenario 6's load: the producer at `ratePerSec` and the consumer at the end of the topic. */
export function latencyLoad(
  ctx: BenchContext,
  cluster: BenchCluster,
  topic: string,
  durationMs = ctx.mode.latencyDurationMs,
  ratePerSec = LATENCY_RATE,
  client: BenchClient = 'sluice',
): LoadSpec {
  return {
    producer: producerConfig(ctx, cluster, topic, 6, {
      client,
      mode: 'rate',
      ratePerSec,
      warmupMs: ctx.mode.latencyWarmupMs,
      durationMs,
      tuning: LATENCY_TUNING,
    }),
    consumer: consumerConfig(cluster, topic, {
      client,
      from: 'end',
      latency: true,
      warmupMs: ctx.mode.latencyWarmupMs,
      maxWaitMs: 500,
    }),
    producerFlags: profileFlags(ctx),
    consumerFlags: profileFlags(ctx),
  }
}

export async function runLatency(
  ctx: BenchContext,
  cluster: BenchCluster,
  topic: string,
  id: string,
  title: string,
  setup: string,
  durationMs = ctx.mode.latencyDurationMs,
  ratePerSec = LATENCY_RATE,
  client: BenchClient = 'sluice',
): Promise<ScenarioRow> {
  const out = await runLoad(cluster, latencyLoad(ctx, cluster, topic, durationMs, ratePerSec, client))
  noteLoad(ctx, `scenario ${id}`, out)
  const p = out.producer
  const notes = [
    `rate ${ratePerSec.toLocaleString('en-US')} rec/s intended, producer ${JSON.stringify(LATENCY_TUNING)}; producer ack latency from intended time p50 ${p?.ackLatency.p50Ms ?? '-'} / p99 ${p?.ackLatency.p99Ms ?? '-'} / p99.9 ${p?.ackLatency.p999Ms ?? '-'} ms`,
  ]
  const row = loadRow(id, title, setup, out, notes)
  row.recordsPerSec = out.consumer?.recordsPerSec
  row.mbPerSec = out.consumer?.mbPerSec
  row.latency = out.consumer?.latency
  row.latencyKind = 'produce (intended send time) to consumer delivery'
  return row
}
