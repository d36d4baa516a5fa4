/**
 * Scenario 6b, `--beside <checkout>`: scenario 6's load (RF3, acks=all, min ISR 2, 6
 * partitions) on this build and on another built checkout of this repository at the same moment,
 * each on its own three-broker cluster, at 200 and 1,000 records/s. Rows `6b/<rate>` (this build)
 * and `6b/<rate>/beside` (the other one), with the CPU of every process.
 *
 * Why side by side: on this VM the speed of the machine drifts more than a per-request change
 * moves. The same build's brokers at 200 records/s used 5.5 %, then 9.5 %, then 4.5 % of a core
 * in runs minutes apart, with the clients moving along (BENCHMARKS.md, issue 16, 2026-12-05).
 * Two builds run at the same moment pay the same machine state and contend for the same cores,
 * so their difference is the change; the producers (the same code on both sides) show that
 * the halves ran under the same conditions.
 *
 * The other checkout must be built (`pnpm build` and `tsc -b bench` there) and have the same
 * bench modules: a checkout of this repository from 2026-12-04 (`f555841`) on.
 */
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { startBenchCluster, type BenchCluster } from '../bench-cluster.js'
import type { ScenarioRow } from '../results.js'
import { runLoad, type LoadOutcome, type LoadSpec } from '../run-load.js'
import { latencyLoad } from './latency.js'
import { loadRow, logRow, wants, type BenchContext } from './context.js'
import { latencyTopic } from './replicated.js'

export const BESIDE_RATES = [200, 1000]

/** The functions of one build that a side-by-side run needs. */
interface BuildUnderTest {
  readonly name: string
  startBenchCluster(options: { brokers: number }): Promise<BenchCluster>
  runLoad(cluster: BenchCluster, spec: LoadSpec): Promise<LoadOutcome>
  latencyLoad(ctx: BenchContext, cluster: BenchCluster, topic: string, durationMs: number, rate: number): LoadSpec
}

const THIS_BUILD: BuildUnderTest = { name: 'this build', startBenchCluster, runLoad, latencyLoad }

/** The other checkout's bench modules, loaded from its bench/dist. */
async function otherBuild(checkout: string): Promise<BuildUnderTest> {
  const dist = path.resolve(checkout, 'bench', 'dist')
  const load = async (file: string): Promise<Record<string, unknown>> =>
    (await import(pathToFileURL(path.join(dist, file)).href)) as Record<string, unknown>
  const cluster = await load('bench-cluster.js')
  const run = await load('run-load.js')
  const latency = await load('scenarios/latency.js')
  for (const [name, f] of [
    ['startBenchCluster', cluster.startBenchCluster],
    ['runLoad', run.runLoad],
    ['latencyLoad', latency.latencyLoad],
  ] as const) {
    if (typeof f !== 'function') throw new Error(`--beside ${checkout}: ${dist} has no ${name}; build it first`)
  }
  return {
    name: path.resolve(checkout),
    startBenchCluster: cluster.startBenchCluster as BuildUnderTest['startBenchCluster'],
    runLoad: run.runLoad as BuildUnderTest['runLoad'],
    latencyLoad: latency.latencyLoad as BuildUnderTest['latencyLoad'],
  }
}

export async function runBeside(ctx: BenchContext, checkout: string | undefined): Promise<void> {
  if (checkout === undefined) {
    // A run of every scenario has nothing to set beside; asking for 6b by name needs the checkout.
    if (ctx.only?.has('6b') === true) throw new Error('scenario 6b needs --beside <checkout>')
    return
  }
  if (!wants(ctx, '6b')) return
  const other = await otherBuild(checkout)
  ctx.log(`scenario 6b: this build beside ${other.name}, both clusters at once`)
  for (const rate of BESIDE_RATES) {
    const [ours, theirs] = await Promise.all([oneSide(ctx, THIS_BUILD, rate), oneSide(ctx, other, rate)])
    const title = `scenario 6 @${rate}/s`
    const setup = 'RF3 acks=all minISR2 6p, two clusters at once'
    const rows = [
      row(`6b/${rate}`, `${title}, this build`, setup, ours),
      row(`6b/${rate}/beside`, `${title}, ${other.name}`, setup, theirs),
    ]
    for (const r of rows) {
      ctx.rows.push(r)
      logRow(ctx, r)
    }
    const brokers = (r: ScenarioRow): number =>
      mean(Object.entries(r.usage).flatMap(([k, u]) => (k.startsWith('broker-') ? [u.cpuPercent] : [])))
    const change = (brokers(rows[0]!) / brokers(rows[1]!) - 1) * 100
    ctx.log(`      note: broker CPU this build / beside: ${change >= 0 ? '+' : ''}${change.toFixed(1)} %`)
  }
}

/** One build's cluster under scenario 6's load at `rate`; the cluster is stopped either way. */
async function oneSide(ctx: BenchContext, build: BuildUnderTest, rate: number): Promise<LoadOutcome> {
  const cluster = await build.startBenchCluster({ brokers: 3 })
  try {
    const topic = `bench-s6b-${rate}`
    await latencyTopic(cluster, topic)
    return await build.runLoad(cluster, build.latencyLoad(ctx, cluster, topic, ctx.mode.latencyDurationMs, rate))
  } finally {
    await cluster.stop()
  }
}

function row(id: string, title: string, setup: string, out: LoadOutcome): ScenarioRow {
  const r = loadRow(id, title, setup, out)
  r.recordsPerSec = out.consumer?.recordsPerSec
  r.latency = out.consumer?.latency
  r.latencyKind = 'produce (intended send time) to consumer delivery'
  return r
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
}
