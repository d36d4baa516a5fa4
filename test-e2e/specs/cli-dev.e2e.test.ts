/**
 * The `sluice` command end to end: `sluice dev` starts a real three-broker cluster as separate
 * processes, and a second "terminal" drives it through the CLI: create a topic, pipe 1,000 keyed
 * lines into `produce`, read them back with `consume`, describe and list topics, feed it bad
 * input. A broker killed with SIGKILL must be reported; finally Ctrl-C (SIGINT) must stop
 * everything and leave no process behind.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import net from 'node:net'
import { kafka, partitionForKey } from '@sluice/protocol'
import { waitFor, withTimeout } from '@sluice/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, consecutiveFreePorts, isAlive, runSluice, startDev, type DevProcess } from '../src/sluice-cli.js'

/** Sends one request frame and resolves to the first answer's body (without its size prefix). */
async function kafkaExchange(port: number, frame: Buffer): Promise<Buffer> {
  const socket = net.connect({ host: '127.0.0.1', port })
  const splitter = new kafka.KafkaFrameSplitter()
  try {
    return await withTimeout(
      new Promise<Buffer>((resolve, reject) => {
        socket.on('error', reject)
        socket.on('close', () => reject(new Error(`port ${port} closed the connection`)))
        socket.on('data', (chunk: Buffer) => {
          const [first] = splitter.push(chunk)
          if (first !== undefined) resolve(first)
        })
        socket.write(frame)
      }),
      10_000,
      `an ApiVersions answer on port ${port}`,
    )
  } finally {
    socket.destroy()
  }
}

const RECORDS = 1000
const PARTITIONS = 6

describe('sluice CLI against sluice dev', () => {
  let dataDir: string
  let dev: DevProcess | undefined
  let bootstrap: string
  let kafkaPorts: number[] = []
  let childPids: number[] = []

  beforeAll(async () => {
    assertBuilt()
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sluice-e2e-dev-'))
    // Metadata, three gRPC ports, then three Kafka listener ports, all consecutive.
    const [metadataPort, ...brokerPorts] = await consecutiveFreePorts(7)
    kafkaPorts = brokerPorts.splice(3)
    bootstrap = `127.0.0.1:${brokerPorts[0]!}`
    dev = startDev([
      '--brokers',
      '3',
      '--data-dir',
      dataDir,
      '--port',
      String(brokerPorts[0]),
      '--kafka-port',
      String(kafkaPorts[0]),
      '--metadata-port',
      String(metadataPort),
      // Port 0: the console on a free port, so a console already on 8080 changes nothing here.
      '--console-port',
      '0',
    ])
    const d = dev
    await waitFor(
      () => {
        if (d.child.exitCode !== null) throw new Error(`sluice dev exited early:\n${d.output()}`)
        return d.output().includes('Sluice dev cluster ready')
      },
      { timeoutMs: 120_000, description: 'the sluice dev ready banner' },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n--- sluice dev output ---\n${d.output()}`)
    })
    const pids = /pids\s+(.*)/.exec(d.output())?.[1] ?? ''
    childPids = [...pids.matchAll(/=(\d+)/g)].map((m) => Number(m[1]))
    expect(childPids).toHaveLength(4)
  })

  afterAll(async () => {
    if (dev !== undefined && dev.child.exitCode === null && dev.child.signalCode === null) dev.child.kill('SIGKILL')
    for (const pid of childPids) if (isAlive(pid)) process.kill(pid, 'SIGKILL')
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true })
  })

  const sluice = async (args: string[], input?: string) =>
    await runSluice(['--bootstrap', bootstrap, ...args], { input })

  it('prints both endpoints of every broker: gRPC for the SDK and CLI, Kafka for Kafka clients', () => {
    const out = dev!.output()
    expect(out).toMatch(new RegExp(`bootstrap\\s+${bootstrap},`))
    expect(out).toMatch(new RegExp(`kafka\\s+${kafkaPorts.map((p) => `127\\.0\\.0\\.1:${p}`).join(',')}\\s`))
  })

  it('starts the web console and prints its URL; it sees the three brokers with their admin ports', async () => {
    const url = /console\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(dev!.output())?.[1]
    expect(url).toBeDefined()
    const session = await (await fetch(`${url}/api/session`)).json()
    expect(session).toMatchObject({ readOnly: false, tokenRequired: false })
    const cluster = (await (await fetch(`${url}/api/cluster`)).json()) as {
      brokers: Array<{ id: number; health: string; adminPort: number | null }>
    }
    expect(cluster.brokers.map((b) => [b.id, b.health])).toEqual([
      [1, 'up'],
      [2, 'up'],
      [3, 'up'],
    ])
    expect(cluster.brokers.every((b) => (b.adminPort ?? 0) > 0)).toBe(true)
  })

  it("answers a Kafka client's ApiVersions on every broker's Kafka port", async () => {
    for (const port of kafkaPorts) {
      const w = new kafka.KafkaWriter()
      kafka.writeRequestHeader(w, 1, { apiKey: 18, apiVersion: 0, correlationId: port, clientId: 'e2e' })
      const answer = await kafkaExchange(port, Buffer.concat(w.toFrame()))
      const r = new kafka.KafkaReader(answer)
      expect([r.int32(), r.int16()]).toEqual([port, 0]) // correlation id, no error
    }
  })

  it('prints readable, prefixed logs from every child', () => {
    const out = dev!.output()
    expect(out).toMatch(/^metadata\s+INFO\s+\S/m)
    for (const id of [1, 2, 3]) expect(out).toMatch(new RegExp(`^broker-${id}\\s+(INFO|WARN|DEBUG)\\s+\\S`, 'm'))
    expect(out).not.toMatch(/^broker-1\s+\{"level"/m)
  })

  it('creates a topic, produces 1,000 keyed lines and consumes each exactly once, in order per partition', async () => {
    const created = await sluice([
      'topics',
      'create',
      'orders',
      '--partitions',
      String(PARTITIONS),
      '--replication-factor',
      '3',
    ])
    expect(created.stderr).toBe('')
    expect(created.code).toBe(0)
    expect(created.stdout).toContain('orders')

    const input = `${Array.from({ length: RECORDS }, (_, i) => `k${i}:v${i}`).join('\n')}\n`
    const produced = await sluice(['produce', 'orders', '--key-separator', ':'], input)
    expect(produced.code, produced.stderr).toBe(0)
    expect(produced.stderr).toContain(`produced ${RECORDS} record(s)`)

    const consumed = await sluice([
      'consume',
      'orders',
      '--from-beginning',
      '--max-messages',
      String(RECORDS),
      '--json',
    ])
    expect(consumed.code, consumed.stderr).toBe(0)
    const lines = consumed.stdout.split('\n').filter((l) => l !== '')
    expect(lines).toHaveLength(RECORDS)
    const records = lines.map((l) => JSON.parse(l) as { partition: number; offset: string; key: string; value: string })
    const seen = new Set<string>()
    const lastIndexOf = new Map<number, { index: number; offset: bigint }>()
    for (const r of records) {
      const i = Number(r.key.slice(1))
      expect(r.key).toBe(`k${i}`)
      expect(r.value).toBe(`v${i}`)
      expect(seen.has(r.key), `duplicate ${r.key}`).toBe(false)
      seen.add(r.key)
      expect(r.partition).toBe(partitionForKey(Buffer.from(r.key), PARTITIONS))
      // Within a partition, offsets grow and input order is kept.
      const prev = lastIndexOf.get(r.partition)
      if (prev !== undefined) {
        expect(BigInt(r.offset)).toBeGreaterThan(prev.offset)
        expect(i).toBeGreaterThan(prev.index)
      }
      lastIndexOf.set(r.partition, { index: i, offset: BigInt(r.offset) })
    }
    expect(seen.size).toBe(RECORDS)

    // Without --max-messages, consume stops by itself at the end offsets seen at start.
    const all = await sluice(['consume', 'orders', '--print-key', '--print-offset'])
    expect(all.code, all.stderr).toBe(0)
    const textLines = all.stdout.split('\n').filter((l) => l !== '')
    expect(textLines).toHaveLength(RECORDS)
    expect(textLines[0]).toMatch(/^\d+:\d+\tk\d+\tv\d+$/)
  })

  it('describes and lists topics', async () => {
    const described = await sluice(['topics', 'describe', 'orders', '--json'])
    expect(described.code, described.stderr).toBe(0)
    const topic = JSON.parse(described.stdout) as {
      name: string
      partitions: Array<{ partition: number; leader: number; replicas: number[]; isr: number[] }>
    }
    expect(topic.name).toBe('orders')
    expect(topic.partitions.map((p) => p.partition).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5])
    for (const p of topic.partitions) {
      expect([1, 2, 3]).toContain(p.leader)
      expect(p.replicas).toHaveLength(3)
      expect(p.isr).toContain(p.leader)
    }
    const table = await sluice(['topics', 'describe', 'orders'])
    expect(table.stdout.split('\n')[0]).toMatch(/^TOPIC\s+PARTITION\s+LEADER\s+LEADER EPOCH\s+REPLICAS\s+ISR$/)
    expect(table.stdout.split('\n').filter((l) => l.startsWith('orders '))).toHaveLength(PARTITIONS)

    const listed = await sluice(['topics', 'list'])
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toMatch(/^orders\s+6\s+3/m)

    const cluster = await sluice(['cluster', 'describe', '--json'])
    expect(cluster.code, cluster.stderr).toBe(0)
    const c = JSON.parse(cluster.stdout) as { brokers: Array<{ brokerId: number }> }
    expect(c.brokers.map((b) => b.brokerId).sort()).toEqual([1, 2, 3])
  })

  it('rejects bad input with exit 1 and a clear error', async () => {
    const bad = await sluice(['topics', 'create', 'bad name!'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/^error: INVALID_TOPIC_EXCEPTION: /)
    expect(bad.stderr).not.toContain('    at ')

    const unknown = await sluice(['consume', 'no-such-topic', '--from-beginning'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/^error: UNKNOWN_TOPIC_OR_PARTITION: .*no-such-topic/)

    const dup = await sluice(['topics', 'create', 'orders'])
    expect(dup.code).toBe(1)
    expect(dup.stderr).toMatch(/^error: TOPIC_ALREADY_EXISTS: /)
  })

  it('says clearly when a child dies unexpectedly, and keeps the rest running', async () => {
    const d = dev!
    const broker3 = childPids[3]!
    process.kill(broker3, 'SIGKILL')
    await waitFor(
      () => d.output().includes(`broker-3 (pid ${broker3}) exited unexpectedly: code null, signal SIGKILL`),
      { timeoutMs: 30_000, description: 'the unexpected-exit message' },
    )
    expect(d.child.exitCode).toBeNull()
    expect(childPids.slice(0, 3).every(isAlive)).toBe(true)
  })

  it('stops every process on SIGINT and exits 0', async () => {
    const d = dev!
    expect(childPids.slice(0, 3).every(isAlive)).toBe(true)
    const unexpectedBefore = d.output().split('exited unexpectedly').length
    d.child.kill('SIGINT')
    const exit = await withTimeout(d.exited, 60_000, 'sluice dev to exit after SIGINT')
    expect(exit, d.output().slice(-3000)).toEqual({ code: 0, signal: null })
    expect(d.output()).toContain('all processes stopped')
    // Stopping on purpose is not reported as an unexpected exit.
    expect(d.output().split('exited unexpectedly').length).toBe(unexpectedBefore)
    // sluice dev waits for every child's exit before it exits itself, so none may be left.
    expect(childPids.filter(isAlive)).toEqual([])
  })
})
