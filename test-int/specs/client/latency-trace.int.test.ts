/**
 * The latency anatomy's trace (packages/protocol/src/trace.ts) with tracing on, against a real
 * in-process cluster of three brokers: one acks=all record through RF3 leaves every hop's stamp
 * (producer, leader, both followers, high watermark, consumer) in this process's trace file.
 * SLUICE_TRACE_DIR is read when @sluice/protocol loads, so it is set before anything imports it
 * (this file's modules are loaded dynamically; vitest gives each test file its own modules).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const traceDir = mkdtempSync(join(tmpdir(), 'sluice-trace-int-'))
process.env.SLUICE_TRACE_DIR = traceDir

type RealClusterModule = typeof import('../../src/client/real-cluster.js')
let real: RealClusterModule
let cluster: Awaited<ReturnType<RealClusterModule['startRealCluster']>>
let protocol: typeof import('@sluice/protocol')

beforeAll(async () => {
  protocol = await import('@sluice/protocol')
  real = await import('../../src/client/real-cluster.js')
  cluster = await real.startRealCluster({ prefix: 'sluice-trace-int-', brokers: 3, defaultReplicationFactor: 3 })
  await real.until(
    'three live brokers',
    async () => (await cluster.client.admin().describeCluster()).brokers.length === 3,
  )
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
  delete process.env.SLUICE_TRACE_DIR
  rmSync(traceDir, { recursive: true, force: true })
})

const HOPS = [
  'producer-enqueue',
  'producer-sent',
  'producer-acked',
  'leader-received',
  'append-done',
  'follower-fetch-answered',
  'follower-response-received',
  'follower-append-done',
  'follower-fetch-received',
  'hw-advanced',
  'produce-answered',
  'consumer-fetch-answered',
  'consumer-response-received',
  'consumer-delivered',
]

describe('the latency trace', () => {
  it('stamps every hop of an acks=all round through three replicas', async () => {
    expect(protocol.traceOn).toBe(true)
    const { client } = cluster
    const topic = 'traced'
    await real.createTopicWithLeaders(client, topic, 1, 3)
    await real.until(
      'an ISR of three',
      async () => (await client.admin().describeTopics([topic]))[0]!.partitions[0]!.isr.length === 3,
    )
    const producer = client.producer({ acks: 'all', lingerMs: 0 })
    // A first record, so that both followers have fetched past it and wait in a parked fetch when
    // the traced one arrives, as they do under steady load.
    await producer.send({ topic, records: [{ value: 'warm-up' }] })
    const [sent] = await producer.send({ topic, records: [{ value: 'round' }] })
    const read = await real.readMessages(client, topic, 2)
    expect(read[1]!.offset).toBe(sent!.offset)
    const events = (): string[][] => {
      protocol.traceFlush()
      return readFileSync(join(traceDir, `trace-${process.pid}.txt`), 'utf8')
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('#'))
        .map((l) => l.split(' '))
        .filter((f) => f[3] === topic)
    }
    await real.until('every hop traced', () => {
      const seen = new Set(events().map((f) => f[1]))
      return HOPS.every((h) => seen.has(h))
    })
    const mine = events()
    const base = String(sent!.offset)
    for (const hop of ['producer-enqueue', 'producer-acked', 'leader-received', 'append-done', 'produce-answered']) {
      expect(mine.some((f) => f[1] === hop && f[5] === base)).toBe(true)
    }
    // The leader stamps its append before it answers the followers' fetches that carry the record.
    const appended = mine.find((f) => f[1] === 'append-done' && f[5] === base)!
    const answers = mine.filter((f) => f[1] === 'follower-fetch-answered' && f[5] === base)
    expect(answers.length).toBeGreaterThan(0)
    for (const a of answers) expect(BigInt(a[0]!)).toBeGreaterThanOrEqual(BigInt(appended[0]!))
    // Both followers appended the record (RF3, acks=all waits for the whole ISR).
    const followers = new Set(mine.filter((f) => f[1] === 'follower-append-done').map((f) => f[2]))
    expect(followers.size).toBe(2)
  }, 60_000)
})
