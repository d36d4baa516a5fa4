/**
 * A Connect worker killed with SIGKILL in the middle of a stream (issue 18): a standalone
 * `sluice connect` runs a file source while lines keep being appended, is killed, and is
 * started again on the same group. Nothing is lost, and a line is repeated only if it came after
 * the last source offset the worker had stored before it died (read from connect-offsets right
 * after the kill): records are acknowledged before their offsets are stored, so everything up to
 * a stored offset was delivered exactly once.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { connect, type SluiceClient } from '@sluice/client'
import { spawnCluster, waitFor, type SpawnedCluster } from '@sluice/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const CLI = fileURLToPath(new URL('../../packages/cli/dist/bin.js', import.meta.url))
const LINES = 20_000

let cluster: SpawnedCluster
let client: SluiceClient
let dir: string
const children: ChildProcess[] = []

function startWorker(connectorFile: string): { child: ChildProcess; lines: string[] } {
  const child = spawn(
    process.execPath,
    [
      CLI,
      '--bootstrap',
      cluster.bootstrap.join(','),
      '--json',
      'connect',
      '--group-id',
      'e2e-crash',
      '--rest-port',
      '0',
      '--standalone',
      connectorFile,
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  children.push(child)
  const lines: string[] = []
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l))
  createInterface({ input: child.stderr! }).on('line', (l) => lines.push(`stderr: ${l}`))
  return { child, lines }
}

/** Every value of the topic so far (an assigned consumer from the start, until it has `atLeast`). */
async function readAll(topic: string, atLeast: number): Promise<string[]> {
  const consumer = client.consumer({ offsetReset: 'earliest', maxWaitMs: 100 })
  await consumer.assign([{ topic }])
  const out: string[] = []
  const stop = setTimeout(() => void consumer.close(), 60_000)
  try {
    for await (const m of consumer) {
      out.push(m.value!.toString())
      if (out.length >= atLeast) break
    }
  } finally {
    clearTimeout(stop)
    await consumer.close()
  }
  return out
}

/** The newest stored position of the connector's file (connect-offsets), or 0. */
async function storedPosition(connector: string): Promise<number> {
  const [end] = await client
    .admin()
    .listOffsets([{ topic: 'connect-offsets' }], 'latest')
    .then((l) => [l.reduce((n, o) => n + Number(o.offset), 0)])
  const consumer = client.consumer({ offsetReset: 'earliest', maxWaitMs: 100 })
  await consumer.assign([{ topic: 'connect-offsets' }])
  let seen = 0
  let position = 0
  try {
    if (end === 0) return 0
    for await (const m of consumer) {
      seen++
      const key = JSON.parse(m.key!.toString()) as [string, unknown]
      if (key[0] === connector && m.value !== null)
        position = (JSON.parse(m.value.toString()) as { position: number }).position
      if (seen >= end!) break
    }
  } finally {
    await consumer.close()
  }
  return position
}

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npx tsc -b\` first`)
  cluster = await spawnCluster({ brokers: 1 })
  client = await connect({
    bootstrap: cluster.bootstrap,
    retry: { retries: 20, initialBackoffMs: 100, maxBackoffMs: 1000 },
  })
  dir = await mkdtemp(path.join(tmpdir(), 'sluice-connect-crash-'))
}, 90_000)

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  await client?.close().catch(() => {})
  await cluster?.stop()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

describe('a Connect worker killed mid-stream', () => {
  it('loses no line after SIGKILL and a restart, and repeats only lines after the last stored offset', async () => {
    const input = path.join(dir, 'stream.txt')
    const connectorFile = path.join(dir, 'stream.properties')
    await writeFile(input, '')
    await writeFile(
      connectorFile,
      [
        'name=stream',
        'connector.class=FileStreamSource',
        `file=${input}`,
        'topic=e2e-stream',
        'batch.size=500',
        'value.converter=string',
      ].join('\n'),
    )
    // The byte position after each line, to tell which lines a stored offset covers.
    const ends: number[] = []
    let bytes = 0
    const line = (i: number): string => `line ${String(i).padStart(6, '0')}`
    let next = 0
    const append = async (n: number): Promise<void> => {
      const chunk: string[] = []
      for (const end = Math.min(LINES, next + n); next < end; next++) {
        chunk.push(`${line(next)}\n`)
        bytes += line(next).length + 1
        ends.push(bytes)
      }
      await appendFile(input, chunk.join(''))
    }
    const first = startWorker(connectorFile)
    await waitFor(() => first.lines.some((l) => l.startsWith('{"url"')), {
      timeoutMs: 60_000,
      description: 'the worker started',
    })
    await append(5000)
    // Kill it while it is in the middle of the stream: some lines delivered, more waiting.
    await waitFor(async () => (await readAll('e2e-stream', 1)).length > 0 && (await storedPosition('stream')) > 0, {
      timeoutMs: 60_000,
      description: 'the first lines delivered and an offset stored',
    })
    // The second half: kill it as soon as its lines start arriving, while batches are in flight.
    await append(5000)
    await waitFor(async () => (await readAll('e2e-stream', 5001)).length > 5000, {
      timeoutMs: 60_000,
      intervalMs: 5,
      description: 'lines of the second half arriving',
    })
    first.child.kill('SIGKILL')
    await new Promise((resolve) => first.child.once('exit', resolve))
    const stored = await storedPosition('stream')
    await append(LINES)
    const second = startWorker(connectorFile)
    const got = await waitFor(
      async () => {
        const v = await readAll('e2e-stream', LINES)
        return new Set(v).size === LINES ? v : undefined
      },
      { timeoutMs: 120_000, description: `all ${LINES} lines in the topic` },
    )
    expect(second.child.exitCode).toBeNull()
    const counts = new Map<string, number>()
    for (const v of got) counts.set(v, (counts.get(v) ?? 0) + 1)
    let repeated = 0
    for (let i = 0; i < LINES; i++) {
      const n = counts.get(line(i)) ?? 0
      if (ends[i]! <= stored) expect(n, `${line(i)} is covered by the stored offset ${stored}`).toBe(1)
      else expect(n).toBeLessThanOrEqual(2)
      if (n > 1) repeated++
    }
    console.log(
      `SIGKILL mid-stream: ${LINES} lines delivered; the stored offset covered ${ends.filter((e) => e <= stored).length} ` +
        `lines, ${repeated} lines after it were delivered twice`,
    )
  }, 240_000)
})
