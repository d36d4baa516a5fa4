/**
 * Runs one measured load against a cluster: starts the producer and/or consumer workers, waits
 * until both are READY, says GO (consumer first), and samples the brokers' and workers' CPU and
 * RSS from /proc over the measured window only (after the warm-up, until the producer's
 * duration ends; for a draining consumer, until it is done).
 *
 * The brokers' request counts are scraped (HTTP /metrics) at GO and after the window, never
 * inside it: a broker's first scrape sends an HTTP socket through the stream code its Kafka
 * sockets run, which deoptimises that code for seconds, and at 200 records/s that alone added
 * 7-9 % to the window's broker CPU (BENCHMARKS.md, 2026-12-05). The rates are over the time
 * between the two scrapes, warm-up included (the same rate).
 */
import type { BenchCluster } from './bench-cluster.js'
import { ProcSampler, type ProcUsage } from './proc-sampler.js'
import { requestRates, scrapeRequestCounts, type RequestCounts } from './request-rates.js'
import {
  startWorker,
  type ConsumerWorkerConfig,
  type ConsumerWorkerResult,
  type ProducerWorkerConfig,
  type ProducerWorkerResult,
  type RunningWorker,
} from './worker-protocol.js'

export interface LoadSpec {
  producer?: ProducerWorkerConfig
  consumer?: ConsumerWorkerConfig
  /** node flags per worker, e.g. --cpu-prof. */
  producerFlags?: string[]
  consumerFlags?: string[]
  /** Environment of both workers (default: this process's), e.g. SLUICE_TRACE_DIR for the anatomy. */
  env?: NodeJS.ProcessEnv
}

export interface LoadOutcome {
  producer?: ProducerWorkerResult
  consumer?: ConsumerWorkerResult
  /** broker-<id>, producer, consumer -> usage over the measured window. */
  usage: Record<string, ProcUsage>
  /** Worker pids (profiles are named by pid). */
  pids: Record<string, number>
  /** The measured window on the monotonic clock in µs (the clock V8 profiles use). */
  windowUs: { from: number; to: number }
  /** broker-<id> -> RPC method -> requests/s from GO to the window's end (request-rates.ts). */
  requestsPerSec: Record<string, Record<string, number>>
}

const nowUs = (): number => Number(process.hrtime.bigint() / 1000n)

async function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      p,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}

export async function runLoad(cluster: BenchCluster, spec: LoadSpec): Promise<LoadOutcome> {
  const p: RunningWorker<ProducerWorkerResult> | undefined =
    spec.producer === undefined ? undefined : startWorker('producer', spec.producer, spec.producerFlags, spec.env)
  const c: RunningWorker<ConsumerWorkerResult> | undefined =
    spec.consumer === undefined ? undefined : startWorker('consumer', spec.consumer, spec.consumerFlags, spec.env)
  let sampler: ProcSampler | undefined
  let usage: Record<string, ProcUsage> | undefined
  const windowUs = { from: 0, to: 0 }
  let scrapedFromUs = 0
  const timers: NodeJS.Timeout[] = []
  // Started at the window's ends, awaited at the end (a scrape is a few ms of HTTP).
  let countsFrom: Promise<RequestCounts> | undefined
  let countsTo: Promise<RequestCounts> | undefined
  try {
    await withDeadline(Promise.all([p?.ready, c?.ready]), 120_000, 'worker setup')
    const pids = new Map([...cluster.pids].filter(([name]) => name.startsWith('broker')))
    if (p !== undefined) pids.set('producer', p.pid)
    if (c !== undefined) pids.set('consumer', c.pid)
    const warmupMs = spec.producer?.warmupMs ?? 0
    timers.push(
      setTimeout(() => {
        sampler = new ProcSampler(pids)
        windowUs.from = nowUs()
      }, warmupMs),
    )
    if (spec.producer !== undefined) {
      timers.push(
        setTimeout(() => {
          usage = sampler?.stop()
          windowUs.to = nowUs()
          countsTo = scrapeRequestCounts(cluster.adminPorts)
        }, warmupMs + spec.producer.durationMs),
      )
    }
    scrapedFromUs = nowUs()
    countsFrom = scrapeRequestCounts(cluster.adminPorts)
    c?.go()
    p?.go()
    const budgetMs =
      (spec.producer === undefined ? 0 : spec.producer.warmupMs + spec.producer.durationMs) +
      (spec.consumer?.timeoutMs ?? 0) +
      120_000
    const producer = p === undefined ? undefined : await withDeadline(p.result, budgetMs, 'the producer')
    if (c !== undefined && spec.consumer?.expectRecords === undefined) c.stop()
    const consumer = c === undefined ? undefined : await withDeadline(c.result, budgetMs, 'the consumer')
    for (const t of timers) clearTimeout(t)
    if (usage === undefined) {
      usage = sampler?.stop() ?? {}
      windowUs.to = nowUs()
      countsTo = scrapeRequestCounts(cluster.adminPorts)
    }
    const requestsPerSec =
      countsFrom === undefined || countsTo === undefined
        ? {}
        : requestRates(await countsFrom, await countsTo, (windowUs.to - scrapedFromUs) / 1000)
    // A worker exits by itself after its RESULT; let it, so --cpu-prof can write its profile.
    await Promise.all([p?.exited(30_000), c?.exited(30_000)])
    const workerPids: Record<string, number> = {}
    if (p !== undefined) workerPids.producer = p.pid
    if (c !== undefined) workerPids.consumer = c.pid
    return { producer, consumer, usage, pids: workerPids, windowUs, requestsPerSec }
  } finally {
    for (const t of timers) clearTimeout(t)
    if (usage === undefined) sampler?.stop()
    p?.kill()
    c?.kill()
  }
}
