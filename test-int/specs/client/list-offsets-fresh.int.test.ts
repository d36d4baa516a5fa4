/**
 * The first listOffsets (admin) and assign (consumer) on many just-created topics. Each used to
 * look its topics up one at a time, and as every topic was new to the client each lookup was a
 * metadata refresh, each at least metadataMinRefreshMs (100 ms) after the last: 50 fresh topics
 * took 5 s. They must cost one refresh for all (docs/decisions.md, "One metadata refresh per
 * call"). The count of refreshes is read from the SDK's debug log, so no timing is asserted.
 * The broker learns of a new topic a moment after the metadata service has it; the test waits for
 * that (a lagging broker answers UNKNOWN_TOPIC_OR_PARTITION and costs the client a retry, an
 * honest extra refresh that is not what is tested here).
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { brokerInternals } from '@sluice/broker/internal'
import type { Logger } from '@sluice/client'
import { startRealCluster, until, type RealCluster } from '../../src/client/real-cluster.js'

const TOPICS = 50
let cluster: RealCluster
let refreshes = 0

/** Counts the metadata cache's 'metadata refreshed' entries; drops everything else. */
function countingLogger(): Logger {
  const logger: Logger = {
    debug: (_obj, msg) => {
      if (msg === 'metadata refreshed') refreshes++
    },
    info: () => {},
    warn: () => {},
    error: () => {},
    child: () => logger,
  }
  return logger
}

beforeAll(async () => {
  cluster = await startRealCluster({ prefix: 'sluice-list-offsets-fresh-', connect: { logger: countingLogger() } })
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
})

/** Creates `TOPICS` one-partition topics and waits until the broker knows and leads each. */
async function freshTopics(): Promise<string[]> {
  const prefix = `fresh-${randomUUID().slice(0, 8)}-`
  const names = Array.from({ length: TOPICS }, (_, i) => `${prefix}${String(i).padStart(2, '0')}`)
  const admin = cluster.client.admin()
  await admin.createTopics(names.map((name) => ({ name, numPartitions: 1, replicationFactor: 1 })))
  await until('every fresh topic has a leader', async () =>
    (await admin.describeTopics(names)).every((t) => t.partitions.every((p) => p.leader >= 0)),
  )
  const ctx = brokerInternals(cluster.brokers[0]!)!.context
  await until('the broker leads every fresh partition', () =>
    names.every((n) => ctx.cache.partition(n, 0) !== undefined && ctx.replicas.get(n, 0)?.isLeader === true),
  )
  return names
}

it('admin listOffsets on fresh topics answers every partition after one metadata refresh', async () => {
  const names = await freshTopics()
  const admin = cluster.client.admin()
  const items = names.map((topic) => ({ topic }))
  const before = refreshes
  const started = performance.now()
  // As the console reads a page: earliest and latest at once.
  const [earliest, latest] = await Promise.all([
    admin.listOffsets(items, 'earliest'),
    admin.listOffsets(items, 'latest'),
  ])
  const ms = performance.now() - started
  const used = refreshes - before
  console.info(`first listOffsets of ${TOPICS} fresh topics: ${ms.toFixed(0)} ms, ${used} metadata refresh(es)`)
  for (const answers of [earliest, latest]) {
    expect(answers.map((a) => [a.topic, a.partition, a.offset])).toEqual(names.map((n) => [n, 0, 0n]))
  }
  // Both calls share one refresh (coalesced); it used to be one per topic.
  expect(used).toBe(1)
}, 60_000)

it('assigning fresh topics to a consumer looks them up with one metadata refresh', async () => {
  const names = await freshTopics()
  const consumer = cluster.client.consumer({ offsetReset: 'earliest' })
  try {
    const before = refreshes
    const started = performance.now()
    const assigned = await consumer.assign(names.map((topic) => ({ topic })))
    const ms = performance.now() - started
    const used = refreshes - before
    console.info(`assign of ${TOPICS} fresh topics: ${ms.toFixed(0)} ms, ${used} metadata refresh(es)`)
    expect(assigned.map((tp) => [tp.topic, tp.partition])).toEqual(names.map((n) => [n, 0]))
    expect(used).toBe(1)
  } finally {
    await consumer.close()
  }
}, 60_000)
