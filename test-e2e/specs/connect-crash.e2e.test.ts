/**
 * A Connect worker killed with SIGKILL in the middle of a stream (issue 18): a standalone
 * `sluice connect` runs a file source while lines keep being appended, is killed, and is
 * started again on the same group. Nothing is lost, and a line is repeated only if it came after
 * the last source offset the worker had stored before it died (read from connect-offsets right
 * after the kill): records are acknowledged before their offsets are stored, so everything up to
 * a stored offset was delivered exactly once.
 */
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { connect, type SluiceClient } from '@sluice/client'
import { spawnCluster, waitFor, type SpawnedCluster } from '@sluice/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  killAllWorkers,
  killWorker,
  readToEnd,
  readValues,
  spawnConnectWorker,
  storedSourceOffset,
} from '../src/connect-worker.js'

const LINES = 20_000

let cluster: SpawnedCluster
let client: SluiceClient
let dir: string

const startWorker = (connectorFile: string) =>
  spawnConnectWorker(cluster.bootstrap, 'e2e-crash', ['--standalone', connectorFile])

/** The newest stored position of the connector's file (connect-offsets), or 0. */
async function storedPosition(connector: string): Promise<number> {
  return (await storedSourceOffset<{ position: number }>(client, connector))?.position ?? 0
}

beforeAll(async () => {
  cluster = await spawnCluster({ brokers: 1 })
  client = await connect({
    bootstrap: cluster.bootstrap,
    retry: { retries: 20, initialBackoffMs: 100, maxBackoffMs: 1000 },
  })
  dir = await mkdtemp(path.join(tmpdir(), 'sluice-connect-crash-'))
}, 90_000)

afterAll(async () => {
  killAllWorkers()
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
    const first = await startWorker(connectorFile)
    await append(5000)
    // Kill it while it is in the middle of the stream: some lines delivered, more waiting.
    await waitFor(
      async () => (await readValues(client, 'e2e-stream', 1)).length > 0 && (await storedPosition('stream')) > 0,
      {
        timeoutMs: 60_000,
        description: 'the first lines delivered and an offset stored',
      },
    )
    // The second half: kill it as soon as its lines start arriving, while batches are in flight.
    await append(5000)
    await waitFor(async () => (await readValues(client, 'e2e-stream', 5001)).length > 5000, {
      timeoutMs: 60_000,
      intervalMs: 5,
      description: 'lines of the second half arriving',
    })
    await killWorker(first)
    const stored = await storedPosition('stream')
    await append(LINES)
    const second = await startWorker(connectorFile)
    const got = await waitFor(
      async () => {
        // Everything up to the end: a read stopping at LINES values would stop short of the tail
        // whenever lines came twice, and wait forever.
        const v = (await readToEnd(client, 'e2e-stream')).map((m) => m.value!.toString())
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
