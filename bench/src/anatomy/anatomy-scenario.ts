/**
 * Scenario 6a, the latency anatomy (issue 16): scenario 6's setup (3 brokers, RF3, acks=all,
 * min.insync.replicas 2, 6 partitions, the same producer and consumer) with every process
 * tracing (SLUICE_TRACE_DIR, packages/protocol/src/trace.ts), at 200 and at 10,000 records/s.
 * After the loads the cluster is stopped (so every process has flushed its trace), the files
 * are joined per batch (anatomy-join.ts) and the median and p99 of every hop printed.
 *
 * Only on request (`--anatomy` or `--only 6a`): tracing costs a little on every hop, so its
 * end-to-end figures are not scenario 6's. SLUICE_BENCH_KEEP_TRACES=1 keeps the trace files
 * (their path is printed) for a closer look; otherwise they are removed.
 *
 * With floor probe results (`--probes` in the same run, or `--probes-file`, probes/), each
 * table is followed by the same hops beside the floor their kind has on this machine and the
 * ratio (probes/hop-floors.ts), for the data path `--floors` names (default kafka-tcp).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { startBenchCluster } from '../bench-cluster.js'
import type { ScenarioRow } from '../results.js'
import { runLoad, type LoadOutcome } from '../run-load.js'
import { logRow, notePids, type BenchContext } from '../scenarios/context.js'
import { latencyLoad } from '../scenarios/latency.js'
import { type FloorProfile, floorRows, formatFloorTable } from '../probes/hop-floors.js'
import type { ProbeReport } from '../probes/probe-result.js'
import { formatHopTable, hopStats, joinRounds, parseTrace, type TraceEvent } from './anatomy-join.js'

const RATES: ReadonlyArray<{ rate: number; label: string }> = [
  { rate: 200, label: '200' },
  { rate: 10_000, label: '10k' },
]

export async function runAnatomy(
  ctx: BenchContext,
  probes?: ProbeReport,
  floorProfile: FloorProfile = 'kafka-tcp',
): Promise<void> {
  if (ctx.only?.has('6a') !== true) return
  const traceDir = await mkdtemp(path.join(os.tmpdir(), 'sluice-anatomy-'))
  ctx.log(`scenario 6a: latency anatomy, traces in ${traceDir}`)
  try {
    const { loads, events, dropped } = await measure(ctx, traceDir)
    if (dropped > 0)
      ctx.log(`warning: the processes dropped ${dropped} trace events (buffers full); rounds may miss stamps`)
    for (const { topic, label, rate, out } of loads) {
      const mine = events.filter((e) => e.topic === topic)
      const rounds = joinRounds(mine, BigInt(out.windowUs.from) * 1000n, BigInt(out.windowUs.to) * 1000n)
      const stats = hopStats(rounds)
      ctx.log(
        `\n${formatHopTable(`anatomy @${rate.toLocaleString('en-US')} rec/s: ${rounds.length} batches in the measured window`, stats)}`,
      )
      const floors = probes === undefined ? undefined : floorRows(stats, rate, probes.results, floorProfile)
      if (floors !== undefined)
        ctx.log(
          `\n${formatFloorTable(`anatomy @${rate.toLocaleString('en-US')} rec/s beside this machine's floors (${floorProfile} data path; probes of ${probes?.startedAt})`, floors)}`,
        )
      const row: ScenarioRow = {
        id: `6a/${label}`,
        title: `latency anatomy @${rate.toLocaleString('en-US')}/s (traced)`,
        setup: 'RF3 acks=all minISR2 6p',
        recordsPerSec: out.consumer?.recordsPerSec,
        mbPerSec: out.consumer?.mbPerSec,
        latency: out.consumer?.latency,
        latencyKind: 'produce (intended send time) to consumer delivery, with tracing on',
        usage: out.usage,
        extra: {
          anatomy: { batches: rounds.length, hops: stats, floors },
          producer: out.producer,
          consumer: out.consumer,
        },
        notes: [`${mine.length} trace events, ${rounds.length} batches joined`],
      }
      ctx.rows.push(row)
      logRow(ctx, row)
    }
  } finally {
    if (process.env.SLUICE_BENCH_KEEP_TRACES !== '1') await rm(traceDir, { recursive: true, force: true })
  }
}

/** Runs both loads on a traced cluster, stops it (every process flushes its trace) and reads the traces. */
async function measure(
  ctx: BenchContext,
  traceDir: string,
): Promise<{
  loads: Array<{ topic: string; label: string; rate: number; out: LoadOutcome }>
  events: TraceEvent[]
  dropped: number
}> {
  const env = { ...process.env, SLUICE_TRACE_DIR: traceDir }
  const cluster = await startBenchCluster({ brokers: 3, env })
  notePids(ctx, 'anatomy cluster:', cluster.pids)
  const loads: Array<{ topic: string; label: string; rate: number; out: LoadOutcome }> = []
  try {
    for (const { rate, label } of RATES) {
      const topic = `bench-s6a-${label}`
      await cluster.createTopic({
        name: topic,
        partitions: 6,
        replicationFactor: 3,
        configs: { 'min.insync.replicas': '2' },
      })
      const out = await runLoad(cluster, { ...latencyLoad(ctx, cluster, topic, ctx.mode.latencyDurationMs, rate), env })
      loads.push({ topic, label, rate, out })
    }
  } finally {
    await cluster.stop()
  }
  return { loads, ...(await readTraces(traceDir)) }
}

/** Every process's events, and how many the processes dropped (their buffers were full). */
async function readTraces(dir: string): Promise<{ events: TraceEvent[]; dropped: number }> {
  const events: TraceEvent[] = []
  let dropped = 0
  for (const f of await readdir(dir)) {
    if (!f.startsWith('trace-')) continue
    const text = await readFile(path.join(dir, f), 'utf8')
    for (const e of parseTrace(text)) events.push(e)
    for (const m of text.matchAll(/^# dropped (\d+)$/gm)) dropped += Number(m[1])
  }
  return { events, dropped }
}
