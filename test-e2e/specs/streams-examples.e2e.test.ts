/**
 * The streams examples (examples/, issue 17) run for real: each example as its own process
 * against a spawned cluster, input produced to it, and the newest count per key in its output
 * topic compared with the counts computed directly from the input.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { connect, partitionForKey, type SluiceClient } from '@sluice/client'
import { spawnCluster, waitFor, type SpawnedCluster } from '@sluice/testkit'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url))
const STREAMS_DIST = fileURLToPath(new URL('../../packages/streams/dist/index.js', import.meta.url))
const PARTITIONS = 3

let cluster: SpawnedCluster
let client: SluiceClient
const children: ChildProcess[] = []

interface Example {
  readonly lines: string[]
  readonly input: string
  readonly output: string
}

/** Starts examples/<name>/index.mjs on fresh topics and a fresh state dir; resolves once it runs. */
async function startExample(name: string): Promise<Example> {
  const id = randomUUID().slice(0, 8)
  const input = `${name}-in-${id}`
  const output = `${name}-out-${id}`
  const stateDir = await mkdtemp(path.join(tmpdir(), `${name}-`))
  const child = spawn(
    process.execPath,
    [
      path.join(EXAMPLES, name, 'index.mjs'),
      `--bootstrap=${cluster.bootstrap.join(',')}`,
      `--input=${input}`,
      `--output=${output}`,
      `--application-id=${name}-${id}`,
      `--state-dir=${stateDir}`,
      `--partitions=${PARTITIONS}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  children.push(child)
  onTestFinished(async () => {
    // SIGTERM makes the example close its app (leaving the group) and exit.
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
    await rm(stateDir, { recursive: true, force: true })
  })
  const lines: string[] = []
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l))
  createInterface({ input: child.stderr! }).on('line', (l) => lines.push(`stderr: ${l}`))
  await waitFor(async () => lines.some((l) => l.startsWith('started:')) || child.exitCode !== null, {
    description: `${name} started`,
    timeoutMs: 60_000,
  })
  if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${lines.join('\n')}`)
  return { lines, input, output }
}

/** Reads the output topic from the start, keeping the newest value per key. */
async function readLatest(topic: string): Promise<Map<string, string>> {
  const latest = new Map<string, string>()
  const reader = client.consumer({ offsetReset: 'earliest', maxWaitMs: 100 })
  await reader.assign(Array.from({ length: PARTITIONS }, (_, p) => ({ topic, partition: p })))
  const run = reader.run({
    eachMessage: ({ message }) => {
      latest.set(message.key!.toString(), message.value!.toString())
    },
  })
  onTestFinished(async () => {
    await run.stop()
    await reader.close()
  })
  return latest
}

/** Watches the output from its start, sends the input, and waits until the newest count per key is the expected one. */
async function produceAndExpect(
  example: Example,
  records: { key: string | null; value: string }[],
  expected: Map<string, number>,
): Promise<void> {
  const latest = await readLatest(example.output)
  const producer = client.producer({ acks: 'all', lingerMs: 2 })
  onTestFinished(async () => {
    await producer.close()
  })
  await producer.send({ topic: example.input, records })
  await expectCounts(example, latest, expected)
}

async function expectCounts(example: Example, latest: Map<string, string>, expected: Map<string, number>) {
  const want = new Map([...expected].map(([k, v]) => [k, String(v)]))
  const same = (): boolean => latest.size === want.size && [...want].every(([k, v]) => latest.get(k) === v)
  await waitFor(async () => same(), { description: 'the output counts', timeoutMs: 60_000 }).catch((err: Error) => {
    throw new Error(
      `${err.message}\nhave ${JSON.stringify([...latest].sort())}\nwant ${JSON.stringify([...want].sort())}\n` +
        `example output:\n${example.lines.slice(-30).join('\n')}`,
    )
  })
  expect(same()).toBe(true)
}

beforeAll(async () => {
  if (!existsSync(STREAMS_DIST)) throw new Error(`${STREAMS_DIST} is missing: run \`npx tsc -b\` first`)
  cluster = await spawnCluster({ brokers: 1 })
  client = await connect({
    bootstrap: cluster.bootstrap,
    retry: { retries: 20, initialBackoffMs: 100, maxBackoffMs: 1000 },
  })
}, 90_000)

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  await client?.close().catch(() => {})
  await cluster?.stop()
})

describe('streams examples', () => {
  it('word count: the newest count per word equals the words in the input', async () => {
    const example = await startExample('streams-word-count')
    const vocabulary = ['the', 'quick', 'brown', 'fox', 'jumps', 'over', 'lazy', 'dog', 'Sluice', 'stream']
    const expected = new Map<string, number>()
    const records = Array.from({ length: 300 }, (_, i) => {
      const words = Array.from({ length: 1 + (i % 7) }, (_, j) => vocabulary[(i * 3 + j * 5) % vocabulary.length]!)
      for (const w of words) expected.set(w.toLowerCase(), (expected.get(w.toLowerCase()) ?? 0) + 1)
      // Punctuation and spacing the example's split must ignore.
      return { key: null, value: `${words.join(i % 2 === 0 ? ' ' : ',  ')}.` }
    })
    await produceAndExpect(example, records, expected)
  }, 120_000)

  it('page views: the newest count per user and one-minute window equals the events in it', async () => {
    const example = await startExample('streams-page-views')
    const users = ['alice', 'bob', 'carol', 'dave', 'erin']
    const base = Date.UTC(2026, 0, 1, 12, 0, 0)
    const expected = new Map<string, number>()
    // Timestamps only grow, so no event arrives after its window closed (no event is late).
    const records = Array.from({ length: 400 }, (_, i) => {
      const user = users[(i * 7) % users.length]!
      const ts = base + i * 700
      const window = new Date(Math.floor(ts / 60_000) * 60_000).toISOString()
      expected.set(`${user}@${window}`, (expected.get(`${user}@${window}`) ?? 0) + 1)
      return { key: user, value: JSON.stringify({ user, page: `/p/${i % 13}`, ts }) }
    })
    await produceAndExpect(example, records, expected)
  }, 120_000)

  it('page views out of order: an event inside the grace is counted, one after its window closed is dropped', async () => {
    const example = await startExample('streams-page-views')
    const users = ['alice', 'bob', 'carol', 'dave', 'erin']
    const base = Date.UTC(2026, 0, 1, 12, 0, 0)
    const MINUTE = 60_000
    const GRACE = 10_000
    // Stream time is the task's (one per input partition): the largest event time it has seen.
    const streamTime = new Map<number, number>()
    const expected = new Map<string, number>()
    let late = 0
    let dropped = 0
    const event = (user: string, ts: number) => {
      const partition = partitionForKey(Buffer.from(user), PARTITIONS)
      const now = Math.max(streamTime.get(partition) ?? ts, ts)
      streamTime.set(partition, now)
      const start = Math.floor(ts / MINUTE) * MINUTE
      // The close rule of docs/streams.md (Windows): closed once stream time reaches end + grace.
      if (now >= start + MINUTE + GRACE) {
        dropped++
      } else {
        if (ts < now) late++
        const key = `${user}@${new Date(start).toISOString()}`
        expected.set(key, (expected.get(key) ?? 0) + 1)
      }
      return { key: user, value: JSON.stringify({ user, page: '/p', ts }) }
    }
    const records: { key: string; value: string }[] = []
    for (let i = 0; i < 400; i++) {
      const user = users[(i * 7) % users.length]!
      records.push(event(user, base + i * 700))
      const partition = partitionForKey(Buffer.from(user), PARTITIONS)
      const now = streamTime.get(partition)!
      // Every 9th event is followed by one 3 s older than the task's stream time (inside the
      // grace, often in the previous window), every 13th by one 90 s older (its window closed).
      if (i % 9 === 4) records.push(event(user, now - 3_000))
      if (i % 13 === 6 && now - 90_000 >= base) records.push(event(user, now - 90_000))
    }
    // The input is built so that both kinds occur (the checks below would pass vacuously otherwise).
    expect(late).toBeGreaterThan(20)
    expect(dropped).toBeGreaterThan(10)
    await produceAndExpect(example, records, expected)
  }, 120_000)
})
