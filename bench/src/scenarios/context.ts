/**
 * What every scenario shares: the mode (short or full durations), the producer tuning, the
 * row list being filled, selection (--only) and profiling, plus builders for worker configs and
 * result rows so the scenario files only say what differs.
 */
import type { BenchCluster } from '../bench-cluster.js'
import type { ScenarioRow } from '../results.js'
import type { LoadOutcome } from '../run-load.js'
import { describeRequestRates } from '../request-rates.js'
import type { ConsumerWorkerConfig, ProducerTuning, ProducerWorkerConfig } from '../worker-protocol.js'

/**
 * The latency scenarios (6, 6a, 6s, 6k, 6j) measure a warmed-up cluster: before their window
 * they send at the measured rate for this long. Sampled every 5 s on 12-04 (BENCHMARKS.md,
 * issue 16, "warm-up"): a broker at 10,000 records/s spends 33 % of a core in its first 5 s (V8
 * still compiling the request path), 20 % in the next 5 s and 15-16 % from 15 s on; at 200/s
 * right after that it spends 7-8 % for about 20 s (background GC and compiler threads) and 5 %
 * from then on. The earlier 1.5 s measured the warm-up itself (short mode showed twice the CPU
 * and three times the p99 of the same build's 60-second runs).
 */
const LATENCY_WARMUP_MS = 20_000

export interface BenchMode {
  full: boolean
  warmupMs: number
  durationMs: number
  sizeDurationMs: number
  latencyWarmupMs: number
  latencyDurationMs: number
  scalePartitions: number[]
  idleMs: number
  scaleDurationMs: number
}

export const SHORT_MODE: BenchMode = {
  full: false,
  warmupMs: 1000,
  durationMs: 4000,
  sizeDurationMs: 2000,
  latencyWarmupMs: LATENCY_WARMUP_MS,
  latencyDurationMs: 6000,
  scalePartitions: [1, 100, 1000],
  idleMs: 3000,
  scaleDurationMs: 3000,
}

export const FULL_MODE: BenchMode = {
  full: true,
  warmupMs: 3000,
  durationMs: 20_000,
  sizeDurationMs: 10_000,
  latencyWarmupMs: LATENCY_WARMUP_MS,
  latencyDurationMs: 60_000,
  scalePartitions: [1, 100, 1000, 10_000],
  idleMs: 15_000,
  scaleDurationMs: 10_000,
}

/**
 * send() calls of 1,000 records the load generator keeps outstanding in 'max' mode (BENCHMARKS.md
 * "Tuning"); SLUICE_BENCH_OUTSTANDING_SENDS overrides it for a sweep.
 */
const OUTSTANDING_SENDS = Number(process.env.SLUICE_BENCH_OUTSTANDING_SENDS ?? 8)

/**
 * The producer settings the throughput scenarios use (chosen by measurement, BENCHMARKS.md).
 * SLUICE_BENCH_TUNING (JSON, e.g. '{"maxInFlight":1}') overrides fields for a sweep; the table
 * header prints the tuning used.
 */
export const DEFAULT_TUNING: ProducerTuning = {
  acks: 1,
  lingerMs: 5,
  batchBytes: 256 * 1024,
  maxInFlight: 5,
  bufferBytes: 32 * 1024 * 1024,
  ...(JSON.parse(process.env.SLUICE_BENCH_TUNING ?? '{}') as Partial<ProducerTuning>),
}

export interface BenchContext {
  mode: BenchMode
  tuning: ProducerTuning
  rows: ScenarioRow[]
  /** Scenario numbers to run; undefined = all. */
  only: Set<string> | undefined
  /** Where --cpu-prof profiles go (brokers and producer workers), when profiling. */
  profileDir: string | undefined
  log: (line: string) => void
  /** pid -> what that process was, for naming CPU profiles. */
  pidRoles: Map<number, string>
  /** Measured windows (monotonic µs): profile summaries count only samples inside them. */
  windowsUs: Array<{ from: number; to: number }>
}

export function wants(ctx: BenchContext, id: string): boolean {
  return ctx.only === undefined || ctx.only.has(id)
}

export function producerConfig(
  ctx: BenchContext,
  cluster: BenchCluster,
  topic: string,
  partitions: number,
  over: Partial<Omit<ProducerWorkerConfig, 'tuning'>> & { tuning?: Partial<ProducerTuning> } = {},
): ProducerWorkerConfig {
  const { tuning, ...rest } = over
  return {
    bootstrap: (over.client ?? 'sluice') === 'sluice' ? cluster.bootstrap : cluster.kafkaBootstrap,
    topic,
    partitions,
    recordBytes: 100,
    mode: 'max',
    chunkRecords: 1000,
    outstandingSends: OUTSTANDING_SENDS,
    partitioning: 'sticky',
    warmupMs: ctx.mode.warmupMs,
    durationMs: ctx.mode.durationMs,
    ...rest,
    tuning: { ...ctx.tuning, ...tuning },
  }
}

export function consumerConfig(
  cluster: BenchCluster,
  topic: string,
  over: Partial<ConsumerWorkerConfig> = {},
): ConsumerWorkerConfig {
  return {
    bootstrap: (over.client ?? 'sluice') === 'sluice' ? cluster.bootstrap : cluster.kafkaBootstrap,
    topic,
    recordBytes: 100,
    from: 'beginning',
    warmupMs: 0,
    latency: false,
    maxWaitMs: 100,
    maxPartitionBytes: 4 * 1024 * 1024,
    maxBytes: 32 * 1024 * 1024,
    timeoutMs: 120_000,
    ...over,
  }
}

export function profileFlags(ctx: BenchContext): string[] {
  return ctx.profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${ctx.profileDir}`]
}

/** Remembers which process was which (CPU profiles are named by pid). */
export function notePids(ctx: BenchContext, label: string, pids: Iterable<[string, number]>): void {
  for (const [name, pid] of pids) ctx.pidRoles.set(pid, `${label} ${name}`)
}

/** Remembers a load's workers and measured window, for the profile summaries. */
export function noteLoad(ctx: BenchContext, label: string, out: LoadOutcome): void {
  notePids(ctx, label, Object.entries(out.pids))
  ctx.windowsUs.push(out.windowUs)
}

/** A row from a producer-only or consumer-only load. */
export function loadRow(id: string, title: string, setup: string, out: LoadOutcome, notes: string[] = []): ScenarioRow {
  const main = out.producer ?? out.consumer
  const errs =
    out.producer !== undefined && out.producer.errors > 0
      ? [`${out.producer.errors} send() calls failed, first: ${out.producer.firstError ?? '?'}`]
      : []
  const rates =
    Object.keys(out.requestsPerSec).length === 0 ? [] : [`requests/s: ${describeRequestRates(out.requestsPerSec)}`]
  return {
    id,
    title,
    setup,
    recordsPerSec: main?.recordsPerSec,
    mbPerSec: main?.mbPerSec,
    usage: out.usage,
    extra: { producer: out.producer, consumer: out.consumer, requestsPerSec: out.requestsPerSec },
    notes: [...notes, ...rates, ...errs],
  }
}

/**
 * Broker CPU per MB moved: the summed CPU of the brokers over the window (ms of CPU per second)
 * divided by MB/s, i.e. ms of broker CPU per MB. Compares the Kafka listener with gRPC (1k vs 1).
 */
export function brokerCpuMsPerMb(row: ScenarioRow): number | undefined {
  if (row.mbPerSec === undefined || row.mbPerSec <= 0) return undefined
  const brokerCpu = Object.entries(row.usage)
    .filter(([k]) => k.startsWith('broker-'))
    .reduce((sum, [, u]) => sum + u.cpuPercent, 0)
  return Math.round(((brokerCpu * 10) / row.mbPerSec) * 10) / 10
}

export function logRow(ctx: BenchContext, row: ScenarioRow): void {
  const lat =
    row.latency === undefined
      ? ''
      : `, p50 ${row.latency.p50Ms} ms, p99 ${row.latency.p99Ms} ms, p99.9 ${row.latency.p999Ms} ms`
  const cpu = Object.entries(row.usage)
    .map(([k, u]) => `${k} ${Math.round(u.cpuPercent)}%`)
    .join(' ')
  ctx.log(
    `  [${row.id}] ${row.title}: ${row.recordsPerSec?.toLocaleString('en-US') ?? '-'} rec/s, ${row.mbPerSec ?? '-'} MB/s${lat}; CPU ${cpu}`,
  )
  const perMb = brokerCpuMsPerMb(row)
  if (perMb !== undefined) ctx.log(`      broker CPU per MB: ${perMb} ms`)
  for (const n of row.notes) ctx.log(`      note: ${n}`)
}
