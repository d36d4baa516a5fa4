/**
 * What the real-client specs share: the Kafka address of spawned brokers, kcat as a one-shot
 * command or a long-running member (always with a deadline, always killed at cleanup), a
 * kafkajs client with a quiet logger, and a few waiting helpers.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import type { SpawnedCluster, SpawnedProcess } from '@sluice/testkit'
import { Kafka, logLevel, type KafkaConfig } from 'kafkajs'

export const KAFKA_HOST = '127.0.0.1'

/** The port of a spawned broker's Kafka listener (testkit starts brokers with `--kafka-port 0`). */
export function kafkaPortOf(broker: SpawnedProcess): number {
  const port = broker.kafkaPort
  if (port === undefined || port <= 0)
    throw new Error(`${broker.name} has no Kafka port: was it started without a Kafka listener?`)
  return port
}

/** `host:port` of every live broker's Kafka listener, for `-b` and kafkajs's `brokers`. */
export function kafkaBrokers(cluster: SpawnedCluster): string[] {
  return cluster.brokers.filter((b) => b.exitInfo === undefined).map((b) => `${KAFKA_HOST}:${kafkaPortOf(b)}`)
}

/** Fails with an explanation when Debian's kcat is not installed (`.ci/run` installs it). */
export function assertKcat(): void {
  const r = spawnSync('kcat', ['-V'], { encoding: 'utf8' })
  if (r.error !== undefined || r.status !== 0)
    throw new Error('kcat is not installed: `apt-get install -y kcat` (.ci/run does it on CI)')
}

export interface KcatResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs kcat to completion with `input` on stdin; kills it and fails once `timeoutMs` passes. */
export async function runKcat(
  args: readonly string[],
  options: { input?: string; timeoutMs?: number } = {},
): Promise<KcatResult> {
  const child = spawn('kcat', args, { stdio: ['pipe', 'pipe', 'pipe'] })
  const out: Buffer[] = []
  const err: Buffer[] = []
  child.stdout.on('data', (c: Buffer) => out.push(c))
  child.stderr.on('data', (c: Buffer) => err.push(c))
  child.stdin.on('error', () => {}) // kcat may exit before reading all of its input
  child.stdin.end(options.input ?? '')
  const timeoutMs = options.timeoutMs ?? 60_000
  let timer: NodeJS.Timeout | undefined
  try {
    return await new Promise<KcatResult>((resolve, reject) => {
      timer = setTimeout(() => {
        child.kill('SIGKILL')
        reject(
          new Error(
            `kcat ${args.join(' ')} did not finish within ${timeoutMs} ms; stderr:\n${Buffer.concat(err).toString()}`,
          ),
        )
      }, timeoutMs)
      child.once('error', reject)
      child.once('close', (code, signal) =>
        resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString() }),
      )
    })
  } finally {
    clearTimeout(timer)
  }
}

/** Runs kcat and fails with its stderr unless it exits 0. */
export async function kcatOk(args: readonly string[], options: { input?: string; timeoutMs?: number } = {}) {
  const r = await runKcat(args, options)
  if (r.code !== 0) throw new Error(`kcat ${args.join(' ')} exited ${r.code ?? r.signal}:\n${r.stderr}`)
  return r
}

/**
 * A kcat that keeps running (a `-G` group member): its stdout lines, stderr kept for errors.
 * It runs with `-u`: to a pipe kcat's output is block-buffered, and a test watching the lines
 * would otherwise miss the last few kilobytes of records until kcat exits.
 */
export interface KcatProcess {
  readonly child: ChildProcess
  readonly lines: string[]
  stderr(): string
  /** SIGTERM (kcat leaves its group on it), then SIGKILL after `timeoutMs`. */
  stop(timeoutMs?: number): Promise<void>
}

export function startKcat(args: readonly string[]): KcatProcess {
  const child = spawn('kcat', ['-u', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  const lines: string[] = []
  const err: string[] = []
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l))
  createInterface({ input: child.stderr! }).on('line', (l) => {
    err.push(l)
    if (err.length > 200) err.shift()
  })
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    child.once('exit', () => resolve())
    child.once('error', () => resolve())
  })
  return {
    child,
    lines,
    stderr: () => err.join('\n'),
    stop: async (timeoutMs = 10_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
      await exited
      clearTimeout(timer)
    },
  }
}

/**
 * A kafkajs client that logs nothing (its default logger prints every retry to the test
 * output) and retries long enough to ride out a broker restart on a slow machine.
 */
export function kafkajsClient(brokers: readonly string[], clientId: string, extra: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({
    clientId,
    brokers: [...brokers],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 5_000,
    requestTimeout: 30_000,
    retry: { retries: 12, initialRetryTime: 200, maxRetryTime: 3_000 },
    ...extra,
  })
}

/** `count` distinct strings `<prefix>-0000`, …, in order. */
export function numbered(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`)
}
