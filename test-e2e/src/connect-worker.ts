/**
 * `sluice connect` as a real process for the Connect e2e tests: spawn a worker from the built
 * CLI (standalone or distributed, whatever the extra arguments say), wait for the JSON line
 * with its REST URL, and SIGKILL every worker still alive at the end. Also the reads those tests
 * make of the cluster: a topic's records from the start, and the source offsets a worker stored
 * in `connect-offsets` (what a restarted worker resumes from).
 *
 * Processes are kept in a module-level list: vitest runs each e2e file in its own fork, so the
 * list is one test file's workers.
 */
import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import type { ConsumerMessage, SluiceClient } from '@sluice/client'
import { waitFor } from '@sluice/testkit'
import { assertBuilt, CLI_BIN } from './sluice-cli.js'

export interface ConnectWorkerProcess {
  readonly child: ChildProcess
  /** The REST URL the worker printed (`http://127.0.0.1:<port>`). */
  readonly url: string
  /** Its stdout lines, and its stderr lines prefixed `stderr: `. */
  readonly lines: string[]
}

const spawned: ChildProcess[] = []

/**
 * Starts `sluice --bootstrap … --json connect --group-id <groupId> --rest-port 0 <args>` and
 * resolves once it printed its URL; rejects with its output if it exits first.
 */
export async function spawnConnectWorker(
  bootstrap: readonly string[],
  groupId: string,
  args: readonly string[],
): Promise<ConnectWorkerProcess> {
  assertBuilt()
  const child = spawn(
    process.execPath,
    [
      CLI_BIN,
      '--bootstrap',
      bootstrap.join(','),
      '--json',
      'connect',
      '--group-id',
      groupId,
      '--rest-port',
      '0',
      '--log-level',
      'warn',
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  spawned.push(child)
  const lines: string[] = []
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l))
  createInterface({ input: child.stderr! }).on('line', (l) => lines.push(`stderr: ${l}`))
  const started = await waitFor(
    () => lines.find((l) => l.startsWith('{"url"')) ?? (child.exitCode !== null ? 'exited' : undefined),
    { timeoutMs: 60_000, description: 'the connect worker printed its URL' },
  )
  if (started === 'exited') throw new Error(`the worker exited:\n${lines.join('\n')}`)
  return { child, url: (JSON.parse(started) as { url: string }).url, lines }
}

/** SIGKILLs a worker and resolves once it is gone. */
export async function killWorker(worker: ConnectWorkerProcess): Promise<void> {
  if (worker.child.exitCode !== null || worker.child.signalCode !== null) return
  const gone = new Promise((resolve) => worker.child.once('exit', resolve))
  worker.child.kill('SIGKILL')
  await gone
}

/** For afterAll: SIGKILLs every worker this file started that is still running. */
export function killAllWorkers(): void {
  for (const c of spawned) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
}

/**
 * The topic's values as text from the start (an assigned consumer), until `atLeast` arrived or
 * `timeoutMs` passed (then what came so far).
 */
export async function readValues(
  client: SluiceClient,
  topic: string,
  atLeast: number,
  timeoutMs = 60_000,
): Promise<string[]> {
  const consumer = client.consumer({ offsetReset: 'earliest', maxWaitMs: 100 })
  await consumer.assign([{ topic }])
  const out: string[] = []
  const stop = setTimeout(() => void consumer.close(), timeoutMs)
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

/**
 * Every record of the topic up to its end as of the call (the latest offsets listed first), so
 * duplicates can be counted: a read that stops at a count would stop short of them.
 */
export async function readToEnd(client: SluiceClient, topic: string, timeoutMs = 60_000): Promise<ConsumerMessage[]> {
  const ends = new Map<number, bigint>()
  for (const o of await client.admin().listOffsets([{ topic }], 'latest'))
    if (BigInt(o.offset) > 0n) ends.set(o.partition, BigInt(o.offset))
  const out: ConsumerMessage[] = []
  if (ends.size === 0) return out
  const consumer = client.consumer({ offsetReset: 'earliest', maxWaitMs: 100 })
  await consumer.assign([...ends.keys()].map((partition) => ({ topic, partition })))
  const stop = setTimeout(() => void consumer.close(), timeoutMs)
  try {
    for await (const m of consumer) {
      if (m.offset < ends.get(m.partition)!) out.push(m)
      if (m.offset + 1n >= ends.get(m.partition)!) ends.delete(m.partition)
      if (ends.size === 0) break
    }
  } finally {
    clearTimeout(stop)
    await consumer.close()
  }
  if (ends.size > 0) throw new Error(`${topic}: partitions ${[...ends.keys()].join(', ')} not read to their end`)
  return out
}

/**
 * The newest source offset the connector stored (connect-offsets, key `["<connector>", {…}]`),
 * or undefined; with one source partition per connector, as the file and PostgreSQL sources have.
 */
export async function storedSourceOffset<T = Record<string, unknown>>(
  client: SluiceClient,
  connector: string,
): Promise<T | undefined> {
  let offset: T | undefined
  for (const m of await readToEnd(client, 'connect-offsets')) {
    // Keys are JSON ["<connector>", {partition}]; a worker's read marker is not (topic-log.ts).
    if (!m.key?.toString().startsWith('[')) continue
    const key = JSON.parse(m.key.toString()) as [string, unknown]
    if (key[0] === connector) offset = m.value === null ? undefined : (JSON.parse(m.value.toString()) as T)
  }
  return offset
}
