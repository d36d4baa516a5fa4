/**
 * A streams application across real processes (issue 17): a count per key over 6 input
 * partitions with two instances (streams-count-instance.mjs), one killed with SIGKILL while it
 * processes and started again on its state directory, while input keeps arriving. The final
 * counts in the output topic (the newest count per key) must equal the counts computed
 * directly from the input: nothing lost, and the records the killed instance had processed
 * but not committed are not counted twice (docs/streams.md §3).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { randomUUID } from 'node:crypto'
import { connect, type SluiceClient } from '@sluice/client'
import { spawnCluster, waitFor, type SpawnedCluster } from '@sluice/testkit'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'

const INSTANCE = fileURLToPath(new URL('./streams-count-instance.mjs', import.meta.url))
const STREAMS_DIST = fileURLToPath(new URL('../../packages/streams/dist/index.js', import.meta.url))

let cluster: SpawnedCluster
let client: SluiceClient
const children: ChildProcess[] = []

interface Instance {
  readonly child: ChildProcess
  readonly lines: string[]
  started(): boolean
}

function startInstance(env: Record<string, string>): Instance {
  const child = spawn(process.execPath, [INSTANCE], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, BOOTSTRAP: cluster.bootstrap.join(','), SESSION_MS: '6000', ...env },
  })
  children.push(child)
  const lines: string[] = []
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l))
  createInterface({ input: child.stderr! }).on('line', (l) => lines.push(`stderr: ${l}`))
  return { child, lines, started: () => lines.some((l) => l.includes('"started"')) }
}

beforeAll(async () => {
  if (!existsSync(STREAMS_DIST)) throw new Error(`${STREAMS_DIST} is missing: run \`npx tsc -b\` first`)
  cluster = await spawnCluster({ brokers: 2 })
  client = await connect({
    bootstrap: cluster.bootstrap,
    retry: { retries: 20, initialBackoffMs: 100, maxBackoffMs: 1000 },
  })
})

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  await client?.close().catch(() => {})
  await cluster?.stop()
})

describe('streams across processes', () => {
  it('a count over 6 partitions, two instances, one killed with SIGKILL mid-run and restarted: the final counts equal the input', async () => {
    const id = randomUUID().slice(0, 8)
    const app = `wc-e2e-${id}`
    const input = `lines-${id}`
    const output = `counts-${id}`
    await client.admin().createTopics([
      { name: input, numPartitions: 6, replicationFactor: 2 },
      { name: output, numPartitions: 6, replicationFactor: 2 },
    ])
    await waitFor(
      async () =>
        (await client.admin().describeTopics([input, output])).every((t) => t.partitions.every((p) => p.leader >= 0)),
      { description: 'leaders of the topics' },
    )
    const dirs = [
      await mkdtemp(path.join(tmpdir(), 'streams-e2e-a-')),
      await mkdtemp(path.join(tmpdir(), 'streams-e2e-b-')),
    ]
    onTestFinished(async () => {
      for (const d of dirs) await rm(d, { recursive: true, force: true })
    })
    const env = (dir: string): Record<string, string> => ({ APP: app, INPUT: input, OUTPUT: output, STATE_DIR: dir })

    const expected = new Map<string, number>()
    const producer = client.producer({ acks: 'all', lingerMs: 2 })
    onTestFinished(async () => {
      await producer.close()
    })
    let next = 0
    const produce = async (n: number): Promise<void> => {
      const records = Array.from({ length: n }, () => {
        const i = next++
        const word = `w${i % 97}`
        expected.set(word, (expected.get(word) ?? 0) + 1)
        return { key: word, value: `line ${i}` }
      })
      for (let at = 0; at < records.length; at += 2000)
        await producer.send({ topic: input, records: records.slice(at, at + 2000) })
    }

    const latest = new Map<string, number>()
    let outputs = 0
    const reader = client.consumer({ offsetReset: 'earliest', maxWaitMs: 100 })
    onTestFinished(async () => {
      await reader.close()
    })
    await reader.assign(Array.from({ length: 6 }, (_, p) => ({ topic: output, partition: p })))
    const run = reader.run({
      eachMessage: ({ message }) => {
        latest.set(message.key!.toString(), Number(message.value!.readBigInt64BE(0)))
        outputs++
      },
    })
    onTestFinished(async () => {
      await run.stop()
    })
    const a = startInstance(env(dirs[0]!))
    const b = startInstance(env(dirs[1]!))
    await waitFor(async () => a.started() && b.started(), { description: 'both instances started', timeoutMs: 60_000 })
    await produce(2000)
    // Mid-run: the first instance dies without closing anything while both work through a burst
    // (they commit every 300 ms; the count writes each update to its changelog at once).
    const seen = outputs
    const burst = produce(30_000)
    await waitFor(async () => outputs >= seen + 3000, { description: 'the burst being processed', timeoutMs: 60_000 })
    a.child.kill('SIGKILL')
    await burst
    await produce(5000)
    const a2 = startInstance(env(dirs[0]!))
    await waitFor(async () => a2.started(), { description: 'the killed instance restarted', timeoutMs: 60_000 })
    await produce(5000)

    const same = (): boolean => latest.size === expected.size && [...expected].every(([k, v]) => latest.get(k) === v)
    await waitFor(async () => same(), { description: 'the final counts', timeoutMs: 90_000 }).catch((err: Error) => {
      throw new Error(
        `${err.message}\nhave ${JSON.stringify([...latest].sort())}\nwant ${JSON.stringify([...expected].sort())}\n` +
          `instance logs:\n${[...b.lines, ...a2.lines].slice(-40).join('\n')}`,
      )
    })
    expect(same()).toBe(true)
    expect([...b.lines, ...a2.lines].some((l) => l.includes('"stopped"'))).toBe(false)
  }, 170_000)
})
