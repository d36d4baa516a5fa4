/**
 * What the streams e2e tests across processes share: streams application instances as child
 * processes (one of the streams-*-instance.mjs scripts each), their topics, the input they are
 * fed with the counts it should give, and a reader of the newest count per key in the output.
 * The tests own the cluster; each helper registers its cleanup with onTestFinished.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { SluiceClient } from '@sluice/client'
import { waitFor } from '@sluice/testkit'
import { onTestFinished } from 'vitest'

const STREAMS_DIST = fileURLToPath(new URL('../../packages/streams/dist/index.js', import.meta.url))

/** The instance scripts beside this file. */
export const COUNT_INSTANCE = fileURLToPath(new URL('./streams-count-instance.mjs', import.meta.url))
export const WORD_COUNT_INSTANCE = fileURLToPath(new URL('./streams-word-count-instance.mjs', import.meta.url))

export function requireBuiltStreams(): void {
  if (!existsSync(STREAMS_DIST)) throw new Error(`${STREAMS_DIST} is missing: run \`npx tsc -b\` first`)
}

export interface Instance {
  readonly child: ChildProcess
  /** Its stdout (one JSON event a line) and stderr (prefixed), as they came. */
  readonly lines: string[]
  started(): boolean
  stopped(): boolean
  /** The newest `{"event":"metrics",...}` line it printed, parsed; undefined before one. */
  metrics(): Record<string, unknown> | undefined
}

/** The child processes of a test file; killAll() in its afterAll. */
export class InstanceProcesses {
  private readonly children: ChildProcess[] = []

  constructor(private readonly bootstrap: () => readonly string[]) {}

  start(script: string, env: Record<string, string>): Instance {
    const child = spawn(process.execPath, [script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, BOOTSTRAP: this.bootstrap().join(','), SESSION_MS: '6000', ...env },
    })
    this.children.push(child)
    const lines: string[] = []
    createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l))
    createInterface({ input: child.stderr! }).on('line', (l) => lines.push(`stderr: ${l}`))
    const has = (event: string): boolean => lines.some((l) => l.includes(`"event":"${event}"`))
    return {
      child,
      lines,
      started: () => has('started'),
      stopped: () => has('stopped'),
      metrics: () => {
        const last = lines.findLast((l) => l.startsWith('{"event":"metrics"'))
        return last === undefined ? undefined : (JSON.parse(last) as Record<string, unknown>)
      },
    }
  }

  killAll(): void {
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  }
}

/** Creates the topics (replication 2) and waits for their leaders. */
export async function createTopics(client: SluiceClient, topics: readonly string[], partitions: number): Promise<void> {
  await client.admin().createTopics(topics.map((name) => ({ name, numPartitions: partitions, replicationFactor: 2 })))
  await waitFor(
    async () =>
      (await client.admin().describeTopics([...topics])).every((t) => t.partitions.every((p) => p.leader >= 0)),
    { description: 'leaders of the topics' },
  )
}

/** `n` fresh state directories, removed when the test finishes. */
export async function stateDirs(n: number): Promise<string[]> {
  const dirs: string[] = []
  for (let i = 0; i < n; i++) dirs.push(await mkdtemp(path.join(tmpdir(), `streams-e2e-${i}-`)))
  onTestFinished(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true })
  })
  return dirs
}

/**
 * A producer of input records that keeps the counts they should give: `record(i)` makes the
 * i-th record and the keys it adds one to.
 */
export function inputFeeder(
  client: SluiceClient,
  topic: string,
  record: (i: number) => { key: string; value: string; counts: readonly string[] },
): { expected: Map<string, number>; produce(n: number): Promise<void>; produced(): number } {
  const expected = new Map<string, number>()
  const producer = client.producer({ acks: 'all', lingerMs: 2 })
  onTestFinished(async () => {
    await producer.close()
  })
  let next = 0
  return {
    expected,
    produced: () => next,
    produce: async (n) => {
      const records = Array.from({ length: n }, () => {
        const r = record(next++)
        for (const k of r.counts) expected.set(k, (expected.get(k) ?? 0) + 1)
        return { key: r.key, value: r.value }
      })
      for (let at = 0; at < records.length; at += 2000)
        await producer.send({ topic, records: records.slice(at, at + 2000) })
    },
  }
}

/** Reads every partition of a count topic (values: Serdes.long()) and keeps the newest count per key. */
export async function latestCounts(
  client: SluiceClient,
  topic: string,
  partitions: number,
): Promise<{ latest: Map<string, number>; records(): number }> {
  const latest = new Map<string, number>()
  let records = 0
  const reader = client.consumer({ offsetReset: 'earliest', maxWaitMs: 100 })
  onTestFinished(async () => {
    await reader.close()
  })
  await reader.assign(Array.from({ length: partitions }, (_, p) => ({ topic, partition: p })))
  const run = reader.run({
    eachMessage: ({ message }) => {
      latest.set(message.key!.toString(), Number(message.value!.readBigInt64BE(0)))
      records++
    },
  })
  onTestFinished(async () => {
    await run.stop()
  })
  return { latest, records: () => records }
}

/** Waits until `latest` equals `expected` exactly; on a timeout the error shows both and the instances' last lines. */
export async function waitForCounts(
  latest: ReadonlyMap<string, number>,
  expected: ReadonlyMap<string, number>,
  instances: readonly Instance[],
  timeoutMs = 90_000,
): Promise<void> {
  const same = (): boolean => latest.size === expected.size && [...expected].every(([k, v]) => latest.get(k) === v)
  await waitFor(async () => same(), { description: 'the final counts', timeoutMs }).catch((err: Error) => {
    const wrong = [...expected]
      .filter(([k, v]) => latest.get(k) !== v)
      .map(([k, v]) => `${k}: ${latest.get(k)} != ${v}`)
    throw new Error(
      `${err.message}\n${wrong.length} keys differ (have != want): ${wrong.slice(0, 30).join(', ')}\n` +
        `instance logs:\n${instances
          .flatMap((i) => i.lines)
          .slice(-40)
          .join('\n')}`,
    )
  })
}
