/**
 * A restore of a persistent store built from 1,000,000 records, timed (issue 17). A count per
 * key over 1,000,000 records with distinct keys runs on a spawned cluster (one broker process
 * and a metadata process), so its persistent (lmdb) store and its changelog both hold a
 * million entries; a second instance of the application with an empty state directory then
 * restores the store from the changelog. The test checks the restore read every changelog
 * record and that the restored store answers for keys across the whole range, and reports how
 * long the restore took (a figure, never asserted: bench/ scenario 10 is where speed is
 * measured).
 */
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { connect, type SluiceClient } from '@sluice/client'
import { Serdes, StreamsApp, StreamsBuilder, changelogTopic } from '@sluice/streams'
import { spawnCluster, waitFor, type SpawnedCluster } from '@sluice/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const STREAMS_DIST = fileURLToPath(new URL('../../packages/streams/dist/index.js', import.meta.url))
const RECORDS = 1_000_000
const PARTITIONS = 4
const STORE = 'counts'

let cluster: SpawnedCluster
let client: SluiceClient
let stateRoot: string

beforeAll(async () => {
  if (!existsSync(STREAMS_DIST)) throw new Error(`${STREAMS_DIST} is missing: run \`npx tsc -b\` first`)
  cluster = await spawnCluster({ brokers: 1 })
  client = await connect({
    bootstrap: cluster.bootstrap,
    retry: { retries: 20, initialBackoffMs: 100, maxBackoffMs: 1000 },
  })
  stateRoot = await mkdtemp(path.join(tmpdir(), 'sluice-streams-restore-'))
}, 90_000)

afterAll(async () => {
  await client?.close().catch(() => {})
  await cluster?.stop()
  if (stateRoot !== undefined) await rm(stateRoot, { recursive: true, force: true })
})

function countTopology(input: string): ReturnType<StreamsBuilder['build']> {
  const b = new StreamsBuilder()
  b.stream(input, { keySerde: Serdes.string(), valueSerde: Serdes.string() })
    .groupByKey()
    .count({ name: STORE, persistent: true })
  return b.build()
}

/** RECORDS records with distinct keys `k<i>`, sent in chunks with a bounded number in flight. */
async function fill(topic: string): Promise<void> {
  const producer = client.producer({ acks: 1, lingerMs: 5 })
  const chunk = 5000
  try {
    const inflight: Promise<unknown>[] = []
    for (let i = 0; i < RECORDS; i += chunk) {
      const records = Array.from({ length: Math.min(chunk, RECORDS - i) }, (_, j) => ({
        key: `k${i + j}`,
        value: 'v',
      }))
      inflight.push(producer.send({ topic, records }))
      if (inflight.length >= 8) await inflight.shift()
    }
    await Promise.all(inflight)
  } finally {
    await producer.close()
  }
}

describe('streams restore', () => {
  it('restores a persistent store built from 1,000,000 records into an empty state directory, timed', async () => {
    const id = randomUUID().slice(0, 8)
    const input = `restore-in-${id}`
    const applicationId = `restore-app-${id}`
    await client.admin().createTopics([{ name: input, numPartitions: PARTITIONS, replicationFactor: 1 }])
    await fill(input)

    // Build the store: the first instance counts every record and commits.
    const builder = new StreamsApp(countTopology(input), {
      applicationId,
      bootstrap: cluster.bootstrap,
      stateDir: path.join(stateRoot, 'first'),
      commitIntervalMs: 1000,
    })
    await builder.start()
    try {
      await waitFor(() => builder.metrics().processed >= RECORDS, {
        timeoutMs: 240_000,
        intervalMs: 200,
        description: `the first instance processed ${RECORDS} records`,
      })
    } finally {
      await builder.close()
    }
    const changelog = changelogTopic(applicationId, STORE)
    const ends = await client.admin().listOffsets([{ topic: changelog }], 'latest')
    expect(ends).toHaveLength(PARTITIONS)
    const changelogRecords = ends.reduce((n, o) => n + Number(o.offset), 0)
    expect(changelogRecords).toBeGreaterThanOrEqual(RECORDS)

    // Restore it: a second instance on an empty state directory.
    const restorer = new StreamsApp(countTopology(input), {
      applicationId,
      bootstrap: cluster.bootstrap,
      stateDir: path.join(stateRoot, 'second'),
    })
    await restorer.start()
    try {
      await waitFor(
        () => {
          const r = restorer.metrics().restore
          return r.restores > 0 && !r.active && restorer.metrics().tasks.every((t) => t.restored)
        },
        { timeoutMs: 240_000, intervalMs: 100, description: 'the restore of the count store ended' },
      )
      const r = restorer.metrics().restore
      expect(r.totalRestoredRecords).toBe(changelogRecords)
      const store = restorer.store<string, number>(STORE)
      for (const i of [0, 1, 4_999, 123_456, 500_000, 765_432, RECORDS - 1]) expect(store.get(`k${i}`)).toBe(1)
      expect(store.get(`k${RECORDS}`)).toBeUndefined()
      console.log(
        `restore of ${r.totalRestoredRecords.toLocaleString('en-US')} changelog records into lmdb: ` +
          `${(r.durationMs / 1000).toFixed(2)} s, ${Math.round(r.recordsPerSecond).toLocaleString('en-US')} records/s`,
      )
    } finally {
      await restorer.close()
    }
  }, 600_000)
})
