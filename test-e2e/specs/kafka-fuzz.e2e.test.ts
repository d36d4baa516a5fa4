/**
 * Hostile input at the Kafka listener of a real broker process: at least 100,000 mutated frames
 * (test-e2e/src/harness/kafka-fuzz-frames.ts, seeded: SLUICE_E2E_SEED=<seed> replays the same
 * frames) over many connections, then:
 * - the broker process is alive, and a fresh connection gets ApiVersions and Metadata answered;
 * - no connection is left open on the broker's side (its count of open file descriptors, read
 *   from /proc, returns to what it was before the fuzzing);
 * - every guarded partition log is byte-identical to before (sha256 of each *.log file), though
 *   mutated Produce requests named those topics the whole time;
 * - the sink topic, the only one a mutated Produce that stayed valid may reach, holds nothing but
 *   batches that pass the broker's batch check (no malformed batch got in);
 * - a produce and fetch round trip through the listener still works.
 * How frames stay away from legitimate log changes is in docs/decisions.md (the fuzz section).
 */
import { createHash, randomUUID } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { connect, type SluiceClient } from '@sluice/client'
import { decodeRecordBatches, encodeRecordBatch, kafka, validateBatches } from '@sluice/protocol'
import { spawnCluster, waitFor, type SpawnedCluster } from '@sluice/testkit'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { KAFKA_HOST, kafkaPortOf } from '../src/harness/kafka-clients.js'
import { sendFuzzFrames } from '../src/harness/kafka-fuzz-driver.js'
import { fuzzFrames, type FuzzTopics } from '../src/harness/kafka-fuzz-frames.js'
import { withKafkaConnection } from '../src/harness/kafka-wire.js'
import { seedFromEnv } from '../src/harness/random.js'

const FRAMES = Math.max(100_000, Number(process.env.SLUICE_FUZZ_FRAMES ?? 0))
const CONCURRENCY = 16
const STALL_MS = 250

let cluster: SpawnedCluster
let client: SluiceClient

beforeAll(async () => {
  cluster = await spawnCluster({ brokers: 1 })
  client = await connect({
    bootstrap: cluster.bootstrap,
    retry: { retries: 20, initialBackoffMs: 100, maxBackoffMs: 1000 },
  })
}, 120_000)

afterAll(async () => {
  await client?.close()
  await cluster?.stop()
})

/** sha256 of every *.log file under `dir`, by path relative to it. */
async function hashLogs(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.log')) continue
    const full = path.join(entry.parentPath, entry.name)
    out.set(
      path.relative(dir, full),
      createHash('sha256')
        .update(await readFile(full))
        .digest('hex'),
    )
  }
  return out
}

/** How many file descriptors a process has open (sockets included), from Linux's /proc. */
async function openFds(pid: number): Promise<number> {
  return (await readdir(`/proc/${pid}/fd`)).length
}

/** The topic of a partition log file's path (`<topic>-<partition>/<base>.log`), if it is one. */
function topicOf(relative: string): string | undefined {
  const dir = relative.split(path.sep)[0]!
  const dash = dir.lastIndexOf('-')
  return dash > 0 && /^\d+$/.test(dir.slice(dash + 1)) ? dir.slice(0, dash) : undefined
}

async function newTopic(name: string, partitions: number): Promise<void> {
  await client.admin().createTopics([{ name, numPartitions: partitions, replicationFactor: 1 }])
  await waitFor(async () => (await client.admin().describeTopics([name]))[0]!.partitions.every((p) => p.leader >= 0), {
    timeoutMs: 30_000,
    description: `leaders of ${name}`,
  })
}

it(`the broker survives ${FRAMES} mutated frames unchanged and still serves`, async () => {
  const seed = seedFromEnv()
  console.info(`kafka fuzz: seed ${seed} (SLUICE_E2E_SEED=${seed} replays these frames)`)
  try {
    await fuzzRun(seed)
  } catch (err) {
    const broker = cluster.brokers[0]!
    const state =
      broker.exitInfo === undefined
        ? `the broker is still running; its last output:\n${broker.outputTail()}`
        : `the broker exited (${broker.exitInfo.code ?? broker.exitInfo.signal}); its last output:\n${broker.outputTail()}`
    throw new Error(
      `kafka fuzz failed with seed ${seed} (rerun with SLUICE_E2E_SEED=${seed}): ${(err as Error).message}; ${state}`,
      { cause: err },
    )
  }
}, 300_000)

async function fuzzRun(seed: number): Promise<void> {
  const broker = cluster.brokers[0]!
  const port = kafkaPortOf(broker)
  const suffix = randomUUID().slice(0, 8)
  const topics: FuzzTopics = {
    guarded: [`fuzz-guard-a-${suffix}`, `fuzz-guard-b-${suffix}`],
    sink: `fuzz-sink-${suffix}`,
    group: `fuzz-group-${suffix}`,
  }
  await newTopic(topics.guarded[0]!, 2)
  await newTopic(topics.guarded[1]!, 1)
  await newTopic(topics.sink, 2)
  const producer = client.producer({ lingerMs: 2 })
  for (const topic of topics.guarded) {
    await producer.send({
      topic,
      records: Array.from({ length: 40 }, (_, i) => ({ key: `k${i}`, value: `guarded record ${i}` })),
    })
  }
  await producer.close()

  const dataDir = path.join(cluster.dataDir, 'broker-1')
  const before = await hashLogs(dataDir)
  const guarded = new Set(topics.guarded)
  const guardedFiles = [...before.keys()].filter((f) => guarded.has(topicOf(f) ?? ''))
  expect(guardedFiles.length).toBeGreaterThanOrEqual(3) // one segment per guarded partition at least

  const fdsBefore = await openFds(broker.pid)
  const started = Date.now()
  const stats = await sendFuzzFrames(fuzzFrames(seed, topics, FRAMES), {
    host: KAFKA_HOST,
    port,
    concurrency: CONCURRENCY,
    stallMs: STALL_MS,
  })
  const table = [...stats.byMutation.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([m, o]) => `  ${m.padEnd(20)} answered ${o.answered}, closed ${o.closed}, stalled ${o.stalled}`)
    .join('\n')
  console.info(
    `kafka fuzz: ${stats.sent} frames in ${Date.now() - started} ms over ${stats.connections} connections: ` +
      `${stats.answered} answered, ${stats.closed} closed, ${stats.stalled} stalled\n${table}`,
  )
  expect(stats.sent).toBe(FRAMES)
  expect(stats.answered).toBeGreaterThan(0)
  expect(stats.closed).toBeGreaterThan(0)

  // 1. The process is alive and a fresh connection is served.
  expect(broker.exitInfo, `the broker exited:\n${broker.outputTail()}`).toBeUndefined()
  await withKafkaConnection(KAFKA_HOST, port, async (c) => {
    const versions = await c.request(kafka.ApiVersionsApi, 3, {
      clientSoftwareName: 'fuzz-check',
      clientSoftwareVersion: '1',
    })
    expect(versions.errorCode).toBe(0)
    expect(versions.apiKeys.map((k) => k.apiKey)).toEqual(expect.arrayContaining([0, 1, 3, 18]))
    const md = await c.request(kafka.MetadataApi, 12, {
      topics: [...topics.guarded, topics.sink].map((name) => ({ name })),
      allowAutoTopicCreation: false,
    })
    expect(md.brokers.map((b) => b.nodeId)).toEqual([1])
    expect(md.topics.map((t) => [t.name, t.errorCode])).toEqual(
      expect.arrayContaining([...topics.guarded, topics.sink].map((name) => [name, 0])),
    )
  })

  // The broker let go of every connection the fuzzer made (a few descriptors of slack for
  // segment files and the metadata service's channels).
  const fdsAfter = await waitFor(
    async () => {
      const n = await openFds(broker.pid)
      return n <= fdsBefore + 8 ? n : undefined
    },
    { timeoutMs: 30_000, description: `the broker's open descriptors to return to about ${fdsBefore}` },
  )
  console.info(`kafka fuzz: broker descriptors ${fdsBefore} before, ${fdsAfter} after`)

  // 2. Every guarded log is byte-identical; no guarded partition has a new segment.
  const after = await hashLogs(dataDir)
  for (const file of guardedFiles) expect(after.get(file), file).toBe(before.get(file))
  expect([...after.keys()].filter((f) => guarded.has(topicOf(f) ?? '')).sort()).toEqual([...guardedFiles].sort())

  // 3. Whatever reached the sink passes the broker's own batch check.
  for (const file of [...after.keys()].filter((f) => topicOf(f) === topics.sink)) {
    const bytes = await readFile(path.join(dataDir, file))
    if (bytes.length > 0) expect(() => validateBatches(bytes), file).not.toThrow()
  }

  // 4. A produce and fetch round trip through the listener.
  await withKafkaConnection(KAFKA_HOST, port, async (c) => {
    const value = `after the fuzz ${suffix}`
    const batch = encodeRecordBatch([{ key: Buffer.from('check'), value: Buffer.from(value) }])
    const produced = await c.request(kafka.ProduceApi, 9, {
      acks: -1,
      timeoutMs: 10_000,
      topicData: [{ name: topics.sink, partitionData: [{ index: 1, records: batch }] }],
    })
    const p = produced.responses[0]!.partitionResponses[0]!
    expect(p.errorCode).toBe(0)
    const fetched = await c.request(kafka.FetchApi, 12, {
      maxWaitMs: 1000,
      minBytes: 1,
      maxBytes: 1 << 20,
      topics: [
        { topic: topics.sink, partitions: [{ partition: 1, fetchOffset: p.baseOffset, partitionMaxBytes: 1 << 20 }] },
      ],
    })
    const part = fetched.responses[0]!.partitions[0]!
    expect(part.errorCode).toBe(0)
    const values = decodeRecordBatches(part.records ?? Buffer.alloc(0)).flatMap((b) =>
      b.records.map((r) => r.value?.toString()),
    )
    expect(values).toContain(value)
  })
}
