/**
 * Debian's kcat (librdkafka) against a spawned cluster of three brokers, through their Kafka
 * listeners only: `-L` lists the brokers and topics, `-P -K:` produces keyed lines, `-C -o
 * beginning -e` reads them back, and two `-G` members of one balanced group share a topic's
 * partitions, each seeing its own share and together every record. Topics are created with the
 * SDK over gRPC, so the test does not depend on a client's topic auto-creation.
 */
import { randomUUID } from 'node:crypto'
import { connect, type SluiceClient } from '@sluice/client'
import { spawnCluster, waitFor, type SpawnedCluster } from '@sluice/testkit'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import {
  assertKcat,
  KAFKA_HOST,
  kafkaBrokers,
  kafkaPortOf,
  kcatOk,
  numbered,
  startKcat,
  type KcatProcess,
} from '../src/harness/kafka-clients.js'

let cluster: SpawnedCluster
let client: SluiceClient

interface KcatMetadata {
  brokers: Array<{ id: number; name: string }>
  topics: Array<{ topic: string; error?: string; partitions: Array<{ partition: number; leader: number }> }>
}

interface KcatMessage {
  topic: string
  partition: number
  offset: number
  key: string | null
  payload: string | null
}

beforeAll(async () => {
  assertKcat()
  cluster = await spawnCluster({ brokers: 3 })
  client = await connect({
    bootstrap: cluster.bootstrap,
    retry: { retries: 20, initialBackoffMs: 100, maxBackoffMs: 1000 },
  })
}, 120_000)

afterAll(async () => {
  await client?.close()
  await cluster?.stop()
})

function bootstrap(): string {
  return kafkaBrokers(cluster).join(',')
}

async function metadata(topic?: string): Promise<KcatMetadata> {
  const r = await kcatOk(['-b', bootstrap(), '-L', '-J', ...(topic === undefined ? [] : ['-t', topic])], {
    timeoutMs: 30_000,
  })
  return JSON.parse(r.stdout) as KcatMetadata
}

/** Creates a topic over gRPC and waits until kcat's metadata shows a leader for every partition. */
async function newTopic(partitions: number): Promise<string> {
  const name = `kcat-${randomUUID().slice(0, 8)}`
  await client.admin().createTopics([{ name, numPartitions: partitions, replicationFactor: 3 }])
  await waitFor(
    async () => {
      const t = (await metadata(name)).topics.find((x) => x.topic === name)
      return t !== undefined && t.partitions.length === partitions && t.partitions.every((p) => p.leader > 0)
    },
    { timeoutMs: 60_000, description: `kcat to see ${name} with a leader for each of its ${partitions} partitions` },
  )
  return name
}

function parseMessages(lines: readonly string[]): KcatMessage[] {
  return lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as KcatMessage)
}

describe('kcat against the Kafka listener', () => {
  it('-L lists the three brokers at their Kafka addresses and the topics', async () => {
    const topic = await newTopic(3)
    // kcat may ask another broker than newTopic's did; each broker's metadata cache catches up on its own.
    let md = await metadata()
    await waitFor(
      async () => {
        md = await metadata()
        return md.topics.some((x) => x.topic === topic && x.partitions.length === 3)
      },
      { timeoutMs: 30_000, description: `kcat -L to list ${topic}` },
    )
    expect(md.brokers.map((b) => b.id).sort()).toEqual([1, 2, 3])
    for (const [i, broker] of cluster.brokers.entries()) {
      expect(md.brokers.find((b) => b.id === i + 1)?.name).toBe(`${KAFKA_HOST}:${kafkaPortOf(broker)}`)
    }
    const t = md.topics.find((x) => x.topic === topic)
    expect(t?.partitions.map((p) => p.partition).sort()).toEqual([0, 1, 2])
  })

  it('-P with keys (-K:) produces lines that -C -o beginning -e reads back', async () => {
    const topic = await newTopic(3)
    const values = numbered('value', 60)
    const input = values.map((v, i) => `key-${i % 7}:${v}`).join('\n')
    await kcatOk(['-b', bootstrap(), '-P', '-t', topic, '-K:', '-X', 'acks=all'], { input, timeoutMs: 60_000 })
    const read = await kcatOk(['-b', bootstrap(), '-C', '-t', topic, '-o', 'beginning', '-e', '-J'], {
      timeoutMs: 60_000,
    })
    const messages = parseMessages(read.stdout.split('\n'))
    expect(messages.map((m) => m.payload).sort()).toEqual([...values].sort())
    for (const m of messages) {
      const i = values.indexOf(m.payload!)
      expect(m.key).toBe(`key-${i % 7}`)
    }
    // One key, one partition; within a partition the order of the input is kept.
    const partitionOfKey = new Map<string, number>()
    for (const m of messages) {
      expect(partitionOfKey.get(m.key!) ?? m.partition).toBe(m.partition)
      partitionOfKey.set(m.key!, m.partition)
    }
    for (const p of [0, 1, 2]) {
      const inPartition = messages.filter((m) => m.partition === p)
      expect(inPartition.map((m) => m.offset)).toEqual(inPartition.map((_, i) => i))
      const order = inPartition.map((m) => values.indexOf(m.payload!))
      expect(order).toEqual([...order].sort((a, b) => a - b))
    }
  })

  it('two -G members of one group share the partitions: each sees its share, together all records', async () => {
    const partitions = 4
    const topic = await newTopic(partitions)
    const group = `kcat-group-${randomUUID().slice(0, 8)}`
    const member = (): KcatProcess =>
      startKcat([
        '-b',
        bootstrap(),
        '-G',
        group,
        '-X',
        'auto.offset.reset=earliest',
        '-X',
        'session.timeout.ms=10000',
        '-J',
        topic,
      ])
    const a = member()
    const b = member()
    onTestFinished(async () => {
      await Promise.all([a.stop(), b.stop()])
    })
    // librdkafka reports each rebalance on stderr: "... rebalanced (...): assigned: <topic> [0], <topic> [2]".
    const latestAssignment = (m: KcatProcess): number[] | undefined => {
      const lines = m.stderr().split('\n')
      for (let i = lines.length - 1; i >= 0; i--) {
        const line = lines[i]!
        if (/revoked/.test(line)) return undefined
        if (/assigned:/.test(line)) return [...line.matchAll(/\[(\d+)\]/g)].map((x) => Number(x[1]))
      }
      return undefined
    }
    const [ownedA, ownedB] = await waitFor(
      () => {
        const x = latestAssignment(a)
        const y = latestAssignment(b)
        if (x === undefined || y === undefined || x.length === 0 || y.length === 0) return undefined
        const all = [...x, ...y].sort()
        return all.length === partitions && all.every((p, i) => p === i) ? ([x, y] as const) : undefined
      },
      {
        timeoutMs: 90_000,
        description: `both kcat members to share the ${partitions} partitions`,
      },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n--- member a:\n${a.stderr()}\n--- member b:\n${b.stderr()}`)
    })
    const values = numbered('g', 80)
    await kcatOk(['-b', bootstrap(), '-P', '-t', topic, '-K:'], {
      input: values.map((v, i) => `k${i}:${v}`).join('\n'),
      timeoutMs: 60_000,
    })
    await waitFor(
      () => {
        const seen = new Set([...parseMessages(a.lines), ...parseMessages(b.lines)].map((m) => m.payload))
        return values.every((v) => seen.has(v))
      },
      { timeoutMs: 60_000, description: 'the two members together to see every record' },
    )
    const seenA = parseMessages(a.lines)
    const seenB = parseMessages(b.lines)
    expect(seenA.length).toBeGreaterThan(0)
    expect(seenB.length).toBeGreaterThan(0)
    for (const m of seenA) expect(ownedA).toContain(m.partition)
    for (const m of seenB) expect(ownedB).toContain(m.partition)
    expect(seenA.length + seenB.length).toBe(values.length)
  })
})
