/**
 * The round skeleton (issue 16's floor in the same conditions): scenario 6's five processes,
 * topology, rate, batching and message pattern (round-topology.ts, round-producer.ts,
 * round-broker.ts), with nothing of Sluice in them: no record-batch format, CRC, protocol
 * parsing, metadata, log segments or metrics, only framed TCP, fs.writeSync and the replication
 * protocol's decisions. What it measures is what this machine charges for the round's messages
 * at that rate: its wake-ups, socket calls and the queueing of five processes on two cores.
 * A Sluice hop within a small factor of the skeleton's same hop is held by the machine, not by
 * Sluice; a hop far above it is Sluice's to cut.
 *
 * Traced runs (SLUICE_TRACE_DIR in every process) stamp the anatomy's hops, so the anatomy's
 * join (anatomy/anatomy-join.ts) gives the skeleton's hop table.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { hopStats, joinRounds, parseTrace, type HopStats, type TraceEvent } from '../../anatomy/anatomy-join.js'
import { registerChild } from '../../children.js'
import type { LatencySummary } from '../../histogram.js'
import type { RoundRoleConfig, WireWindow } from './round-main.js'
import { ROUND_BROKERS } from './round-topology.js'

export interface RoundSkeletonOptions {
  readonly ratePerSec: number
  readonly warmupMs: number
  readonly durationMs: number
  readonly recordBytes: number
  /** Stamp the anatomy's hops (every process writes its trace here, then it is joined). */
  readonly traced: boolean
}

export interface RoundSkeletonResult {
  readonly ratePerSec: number
  readonly traced: boolean
  /** Intended send time to consumer arrival, records intended in the measured window. */
  readonly endToEnd: LatencySummary
  /** Intended send time to the producer's acknowledgement. */
  readonly ack: LatencySummary
  /** CPU over the measured window (100 = one core) and RSS at its end: broker-0..2, producer, consumer. */
  readonly usage: Record<string, { cpuPercent: number; rssMb: number; windowMs: number }>
  readonly records: number
  /** Traced runs: the anatomy's hop table over the measured window, and how many batches it joined. */
  readonly hops?: HopStats[]
  readonly batches?: number
}

const ASK_TIMEOUT_MS = 15_000

class Child {
  private nextId = 1
  constructor(
    readonly name: string,
    private readonly proc: ChildProcess,
  ) {}

  static async start(
    name: string,
    config: RoundRoleConfig,
    env: NodeJS.ProcessEnv,
  ): Promise<{ child: Child; port?: number }> {
    const proc = fork(fileURLToPath(new URL('./round-main.js', import.meta.url)), [JSON.stringify(config)], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      env,
    })
    registerChild(proc)
    const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`round skeleton ${name} did not start`)), ASK_TIMEOUT_MS)
      proc.once('exit', (code) => reject(new Error(`round skeleton ${name} exited with ${code} before starting`)))
      proc.on('message', (m: Record<string, unknown>) => {
        if (m.type !== 'ready' && m.type !== 'failed') return
        clearTimeout(timer)
        if (m.type === 'ready') resolve(m)
        else reject(new Error(`round skeleton ${name} failed: ${String(m.error)}`))
      })
    })
    const child = new Child(name, proc)
    return { child, ...(typeof ready.port === 'number' ? { port: ready.port } : {}) }
  }

  ask(type: string, extra: Record<string, unknown> = {}, timeoutMs = ASK_TIMEOUT_MS): Promise<Record<string, unknown>> {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.proc.off('message', onMessage)
        reject(new Error(`round skeleton ${this.name} did not answer ${type}`))
      }, timeoutMs)
      const onMessage = (m: Record<string, unknown>): void => {
        if (m.type !== type || m.id !== id) return
        clearTimeout(timer)
        this.proc.off('message', onMessage)
        resolve(m)
      }
      this.proc.on('message', onMessage)
      this.proc.send({ type, id, ...extra })
    })
  }

  async close(): Promise<void> {
    if (this.proc.exitCode !== null) return
    const exited = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()))
    this.proc.send({ type: 'close' })
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 3000)
    await exited
    clearTimeout(timer)
  }
}

export async function runRoundSkeleton(options: RoundSkeletonOptions): Promise<RoundSkeletonResult> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sluice-round-'))
  const traceDir = path.join(dataDir, 'traces')
  const env = { ...process.env, SLUICE_TRACE_DIR: options.traced ? traceDir : '' }
  const children: Child[] = []
  try {
    const ports: number[] = []
    for (let id = 0; id < ROUND_BROKERS; id++) {
      const { child, port } = await Child.start(`broker-${id}`, { role: 'broker', id, dataDir }, env)
      children.push(child)
      ports.push(port!)
    }
    const brokers = [...children]
    await Promise.all(brokers.map((b) => b.ask('follow', { ports })))
    const consumer = (await Child.start('consumer', { role: 'consumer', ports, recordBytes: options.recordBytes }, env))
      .child
    children.push(consumer)
    const producer = (
      await Child.start(
        'producer',
        { role: 'producer', ports, ratePerSec: options.ratePerSec, recordBytes: options.recordBytes },
        env,
      )
    ).child
    children.push(producer)

    const t0 = process.hrtime.bigint() + 300_000_000n
    const warmEnd = t0 + BigInt(options.warmupMs) * 1_000_000n
    const stop = warmEnd + BigInt(options.durationMs) * 1_000_000n
    const window: WireWindow = { t0Ns: String(t0), warmEndNs: String(warmEnd), stopNs: String(stop) }
    await consumer.ask('measure', { window })
    const total = Math.ceil((Number(stop - t0) / 1e9) * options.ratePerSec)
    // Orchestration, not the measured path: the CPU window opens when the warm-up ends.
    const mark = new Promise<void>((resolve, reject) => {
      setTimeout(
        () =>
          Promise.all(children.map((c) => c.ask('mark'))).then(
            () => resolve(),
            (err: unknown) => reject(err),
          ),
        Math.max(0, Number(warmEnd - process.hrtime.bigint()) / 1e6),
      )
    })
    const ran = await producer.ask('run', { window }, options.warmupMs + options.durationMs + 60_000)
    if (typeof ran.error === 'string') throw new Error(`round skeleton producer: ${ran.error}`)
    await mark
    const deadline = Date.now() + 15_000
    let reports = await Promise.all(children.map((c) => c.ask('report')))
    while (Number(reports[ROUND_BROKERS]!.received) < total) {
      if (Date.now() > deadline)
        throw new Error(`round skeleton consumer received ${reports[ROUND_BROKERS]!.received} of ${total} records`)
      await new Promise((r) => setTimeout(r, 20))
      reports = await Promise.all(children.map((c) => c.ask('report')))
    }
    const usage: RoundSkeletonResult['usage'] = {}
    children.forEach((c, i) => {
      const r = reports[i]!
      usage[c.name] = {
        cpuPercent: Math.round((Number(r.cpuUs) / 1000 / Number(r.elapsedMs)) * 1000) / 10,
        rssMb: Math.round(Number(r.rssMb)),
        windowMs: Math.round(Number(r.elapsedMs)),
      }
    })
    await Promise.all(children.map((c) => c.close()))
    children.length = 0
    const base = {
      ratePerSec: options.ratePerSec,
      traced: options.traced,
      endToEnd: reports[ROUND_BROKERS]!.latency as LatencySummary,
      ack: ran.ack as LatencySummary,
      usage,
      records: total,
    }
    if (!options.traced) return base
    const rounds = joinRounds(await readTraces(traceDir), warmEnd, stop)
    return { ...base, hops: hopStats(rounds), batches: rounds.length }
  } finally {
    await Promise.all(children.map((c) => c.close().catch(() => {})))
    await rm(dataDir, { recursive: true, force: true })
  }
}

async function readTraces(dir: string): Promise<TraceEvent[]> {
  const events: TraceEvent[] = []
  for (const f of await readdir(dir).catch(() => [] as string[])) {
    if (!f.startsWith('trace-')) continue
    for (const e of parseTrace(await readFile(path.join(dir, f), 'utf8'))) events.push(e)
  }
  return events
}
