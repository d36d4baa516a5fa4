/**
 * The load generators run as child processes (`node dist/workers/<kind>-worker.js <json>`), one
 * per producer or consumer, so each has its own event loop and its CPU can be read from /proc
 * like a broker's. Protocol on stdio, one line each:
 *   worker -> bench  `READY`            set up (connected, assigned), waiting
 *   bench  -> worker `GO\n` on stdin     start the measured run now
 *   bench  -> worker `STOP\n` on stdin   (duration-less consumers) finish and report
 *   worker -> bench  `RESULT <json>`     the outcome, then the worker exits 0
 * Anything else the worker prints is kept for error messages.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { registerChild } from './children.js'
import type { LatencySummary } from './histogram.js'

export interface ProducerTuning {
  acks: 0 | 1 | 'all'
  lingerMs: number
  batchBytes: number
  maxInFlight: number
  bufferBytes: number
}

/** Which client a worker drives: the SDK over gRPC, or kafkajs or kcat (librdkafka) over the Kafka listener. */
export type BenchClient = 'sluice' | 'kafkajs' | 'kcat'

export interface ProducerWorkerConfig {
  /** Default 'sluice'; with 'kafkajs', bootstrap lists the brokers' Kafka endpoints. */
  client?: BenchClient
  bootstrap: string[]
  topic: string
  partitions: number
  recordBytes: number
  tuning: ProducerTuning
  /** 'max': as fast as acks allow; 'rate': `ratePerSec` records at fixed intended times. */
  mode: 'max' | 'rate'
  ratePerSec?: number
  /** Records per send() call in 'max' mode. */
  chunkRecords: number
  /** send() calls outstanding at once in 'max' mode. */
  outstandingSends: number
  /** 'sticky': the producer's keyless default; 'spread': record i goes to partition i % partitions. */
  partitioning: 'sticky' | 'spread'
  warmupMs: number
  durationMs: number
}

export interface ProducerWorkerResult {
  /** Acknowledged in the measured window (after warm-up). */
  records: number
  bytes: number
  windowMs: number
  recordsPerSec: number
  mbPerSec: number
  /** Every record acknowledged, warm-up included (what the topic now holds). */
  totalRecords: number
  /** Per send() call: ack time minus the intended (rate) or actual (max) send time. */
  ackLatency: LatencySummary
  errors: number
  firstError?: string
  cpuPercent: number
}

export interface ConsumerWorkerConfig {
  client?: BenchClient
  bootstrap: string[]
  topic: string
  recordBytes: number
  from: 'beginning' | 'end'
  /** Stop once this many records arrived ('drain' of a known topic). */
  expectRecords?: number
  /** Otherwise run until STOP; the first warmupMs of records are not counted. */
  warmupMs: number
  /** Values carry the intended send time: record end-to-end latency. */
  latency: boolean
  maxWaitMs: number
  maxPartitionBytes: number
  maxBytes: number
  timeoutMs: number
}

export interface ConsumerWorkerResult {
  records: number
  bytes: number
  windowMs: number
  recordsPerSec: number
  mbPerSec: number
  totalRecords: number
  latency?: LatencySummary
  cpuPercent: number
  timedOut: boolean
}

/** Scenario 10's application (workers/streams-worker.ts). */
export interface StreamsWorkerConfig {
  bootstrap: string[]
  applicationId: string
  stateDir: string
  input: string
  /** 'map': filter + mapValues + to(output); 'count': groupByKey().count() into an in-memory store; 'count-lmdb': into a persistent (lmdb) one. */
  topology: 'map' | 'count' | 'count-lmdb'
  output?: string
  /** 'process': input records/s up to `records`; 'restore': the restore's own records/s. */
  measure: 'process' | 'restore'
  records: number
  timeoutMs: number
}

export interface StreamsWorkerResult {
  recordsPerSec: number
  records: number
  /** The worker's CPU over the measured window ('process' only). */
  cpuPercent: number
}

export interface RunningWorker<R> {
  readonly pid: number
  readonly child: ChildProcess
  ready: Promise<void>
  result: Promise<R>
  go(): void
  stop(): void
  /** Resolves once the process has exited (a --cpu-prof profile is written by then). */
  exited(timeoutMs: number): Promise<void>
  kill(): void
}

const workersDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'workers')

/** Starts a worker; `nodeFlags` e.g. ['--cpu-prof', '--cpu-prof-dir=...']. */
/**
 * Node flags of every producer and consumer worker: a 64 MiB young generation (V8's default is
 * 16 MiB on 64-bit), the tuning packages/client/README.md ("Tuning") recommends for throughput clients —
 * a client allocates a few objects per record, and a larger nursery means fewer scavenges and
 * fewer short-lived records promoted. Measured in BENCHMARKS.md (session 3).
 * SLUICE_BENCH_CLIENT_NODE_FLAGS (space separated, '' for none) overrides it.
 */
export const CLIENT_NODE_FLAGS: readonly string[] = (
  process.env.SLUICE_BENCH_CLIENT_NODE_FLAGS ?? '--max-semi-space-size=64'
)
  .split(' ')
  .filter((f) => f !== '')

export function startWorker<R>(
  kind: 'producer' | 'consumer' | 'streams',
  config: object,
  nodeFlags: readonly string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): RunningWorker<R> {
  const client = (config as { client?: BenchClient }).client ?? 'sluice'
  const script = path.join(workersDir, `${client === 'sluice' ? '' : `${client}-`}${kind}-worker.js`)
  const child = spawn(process.execPath, [...CLIENT_NODE_FLAGS, ...nodeFlags, script, JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env,
  })
  registerChild(child)
  const tail: string[] = []
  let onReady!: () => void
  let onResult!: (r: R) => void
  let onFail!: (e: Error) => void
  const ready = new Promise<void>((resolve, reject) => {
    onReady = resolve
    onFail = reject
  })
  const result = new Promise<R>((resolve, reject) => {
    onResult = resolve
    const prev = onFail
    onFail = (e) => {
      prev(e)
      reject(e)
    }
  })
  ready.catch(() => {})
  result.catch(() => {})
  let gotResult = false
  const keep = (line: string): void => {
    tail.push(line)
    if (tail.length > 40) tail.shift()
  }
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line === 'READY') onReady()
    else if (line.startsWith('RESULT ')) {
      gotResult = true
      onResult(JSON.parse(line.slice(7)) as R)
    } else keep(line)
  })
  createInterface({ input: child.stderr! }).on('line', keep)
  child.on('exit', (code, signal) => {
    if (!gotResult)
      onFail(
        new Error(
          `${kind} worker exited (code ${String(code)}, signal ${String(signal)}) without a result:\n${tail.join('\n')}`,
        ),
      )
  })
  const send = (line: string): void => {
    if (child.exitCode === null) child.stdin!.write(`${line}\n`)
  }
  return {
    pid: child.pid!,
    child,
    ready,
    result,
    go: () => send('GO'),
    stop: () => send('STOP'),
    exited: async (timeoutMs) => {
      if (child.exitCode !== null || child.signalCode !== null) return
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs)
        child.once('exit', () => {
          clearTimeout(timer)
          resolve()
        })
      })
    },
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    },
  }
}

/**
 * The SDK workers' data transport (ConnectOptions.dataTransport): SLUICE_BENCH_DATA_TRANSPORT
 * ('kafka' or 'grpc') picks one for a comparison run; unset, the SDK's default. Read in the worker,
 * whose environment is the bench's.
 */
export function benchDataTransport(): 'kafka' | 'grpc' | undefined {
  const v = process.env.SLUICE_BENCH_DATA_TRANSPORT
  if (v === undefined || v === '') return undefined
  if (v !== 'kafka' && v !== 'grpc') throw new Error(`SLUICE_BENCH_DATA_TRANSPORT must be kafka or grpc, got ${v}`)
  return v
}

/** Worker side: the config from argv, and a promise per stdin command. */
export function workerStdin(): { config: unknown; go: Promise<void>; stop: Promise<void> } {
  const config = JSON.parse(process.argv[2] ?? '{}') as unknown
  let go!: () => void
  let stop!: () => void
  const goP = new Promise<void>((resolve) => {
    go = resolve
  })
  const stopP = new Promise<void>((resolve) => {
    stop = resolve
  })
  const rl = createInterface({ input: process.stdin })
  rl.on('line', (line) => {
    if (line === 'GO') go()
    else if (line === 'STOP') stop()
  })
  // The bench died: nobody is left to read our result.
  rl.on('close', () => {
    stop()
    setTimeout(() => process.exit(2), 5000).unref()
  })
  return { config, go: goP, stop: stopP }
}

export function cpuPercentSince(startUsage: NodeJS.CpuUsage, startMs: number): number {
  const u = process.cpuUsage(startUsage)
  const elapsed = performance.now() - startMs
  return elapsed > 0 ? Math.round(((u.user + u.system) / 1000 / elapsed) * 1000) / 10 : 0
}
