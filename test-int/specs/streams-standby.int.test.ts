/**
 * Standby tasks (numStandbyReplicas 1) against a REAL in-process cluster: two instances of a
 * word count built with StreamsBuilder, each keeping standby copies of the other's stateful
 * tasks up to date from their changelogs. The instance running half the counts loses its
 * connection to the cluster at once (its client is closed under it: nothing is committed or
 * closed cleanly), and the other takes its tasks over from its standbys: the restore after the
 * failover reads only what the standbys had not applied (nothing here), not the changelogs,
 * and the counts go on exactly. And an instance that hands tasks to a joining one keeps them
 * as standbys as they are, and takes them back from those when the other leaves. With an
 * in-memory and with a persistent (lmdb) store.
 */
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { connect, type SluiceClient } from '@sluice/client'
import { Serdes, StreamsApp, StreamsBuilder, changelogTopic, type StreamsConfig } from '@sluice/streams'
import { createTopicWithLeaders, until, type RealCluster } from '../src/client/real-cluster.js'
import { quiet, startStreamsCluster } from '../src/client/streams-cluster.js'

let cluster: RealCluster
let client: SluiceClient

beforeAll(async () => {
  cluster = await startStreamsCluster('sluice-streams-standby-int-', 3)
  client = cluster.client
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
})

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-streams-standby-'))
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true })
  })
  return dir
}

/** Lines of two words out of 400, so every count store holds many keys; adds to `expected`. */
async function produceLines(topic: string, from: number, n: number, expected: Map<string, number>): Promise<void> {
  const producer = client.producer({ lingerMs: 1 })
  const records = Array.from({ length: n }, (_, j) => {
    const i = from + j
    const line = `w${i % 400} v${(i * 7) % 400}`
    for (const w of line.split(' ')) expected.set(w, (expected.get(w) ?? 0) + 1)
    return { key: `k${i}`, value: line }
  })
  await producer.send({ topic, records })
  await producer.close()
}

/** Changelog records of the count store in these tasks' partitions: what a restore from scratch reads. */
async function changelogSize(app: string, tasks: string[]): Promise<number> {
  const partitions = new Set(tasks.map((t) => Number(t.split('_')[1])))
  const ends = await client.admin().listOffsets([{ topic: changelogTopic(app, 'counts') }], 'latest')
  return ends.filter((o) => partitions.has(o.partition)).reduce((n, o) => n + Number(o.offset), 0)
}

interface Setup {
  app: string
  input: string
  output: string
}

async function setup(): Promise<Setup> {
  const id = randomUUID().slice(0, 8)
  const s = { app: `sb-${id}`, input: `in-${id}`, output: `out-${id}` }
  await createTopicWithLeaders(client, s.input, 3)
  await createTopicWithLeaders(client, s.output, 3)
  return s
}

/** Word count: sub-topology 0 splits lines (stateless), sub-topology 1 counts in store `counts`. */
function wordCount(s: Setup, persistent: boolean) {
  const builder = new StreamsBuilder()
  builder
    .stream(s.input, { keySerde: Serdes.string(), valueSerde: Serdes.string() })
    .flatMapValues((line) => line.split(' '))
    .groupBy((_key, word) => word, { name: 'words', keySerde: Serdes.string(), valueSerde: Serdes.string() })
    .count({ name: 'counts', persistent })
    .toStream()
    .to(s.output, { keySerde: Serdes.string(), valueSerde: Serdes.long() })
  return builder.build()
}

function configOf(s: Setup, stateDir: string, c: SluiceClient): StreamsConfig {
  return {
    applicationId: s.app,
    client: c,
    stateDir,
    numStandbyReplicas: 1,
    commitIntervalMs: 200,
    sessionTimeoutMs: 3000,
    heartbeatIntervalMs: 100,
    logger: quiet,
  }
}

/** Every expected count is in the `counts` store of one of the apps (its active tasks). */
function holds(apps: StreamsApp[], expected: Map<string, number>): boolean {
  return [...expected].every(([w, n]) =>
    apps.some((app) => {
      try {
        return app.store<string, number>('counts').get(w) === n
      } catch {
        return false
      }
    }),
  )
}

const stateful = (app: StreamsApp) => app.metrics().tasks.filter((t) => t.taskId.startsWith('1_'))

describe.each([
  ['in memory', false],
  ['persistent', true],
] as const)('streams standby tasks (%s store)', (_kind, persistent) => {
  it('keeps standbys up to date, and a failover to them restores only their small tail; the counts stay exact', async () => {
    const s = await setup()
    const build = () => wordCount(s, persistent)
    const config = (stateDir: string, c: SluiceClient) => configOf(s, stateDir, c)
    // The instance that fails has a client of its own, closed under it.
    const doomedClient = await connect({ bootstrap: cluster.brokers.map((b) => b.endpoint), logger: quiet })
    onTestFinished(async () => {
      await doomedClient.close().catch(() => {})
    })
    const expected = new Map<string, number>()
    const bDir = await tempDir()
    const a = new StreamsApp(build(), config(await tempDir(), doomedClient))
    const b = new StreamsApp(build(), config(bDir, client))
    onTestFinished(async () => {
      await a.close().catch(() => {})
      await b.close().catch(() => {})
    })
    const counted = (app: StreamsApp) => () => holds([app], expected)
    const countedOnBoth = () => holds([a, b], expected)

    await a.start()
    await b.start()
    await until(
      'six tasks over two instances, all restored',
      () =>
        a.metrics().tasks.length + b.metrics().tasks.length === 6 &&
        [a, b].every((app) => app.metrics().tasks.length === 3 && app.metrics().tasks.every((t) => t.restored)),
      30_000,
    )
    await produceLines(s.input, 0, 1500, expected)
    await until('the counts of 1500 lines over both instances', countedOnBoth, 30_000)

    // Every stateful task of the one instance has a standby on the other (three in all), caught up.
    await until(
      "b's standbys hold a's stateful tasks, caught up with their changelogs",
      () => {
        const m = b.metrics()
        const held = new Set([...m.standbys.map((x) => x.taskId), ...stateful(b).map((t) => t.taskId)])
        return held.size === 3 && m.standbys.every((x) => x.lag === 0)
      },
      30_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${JSON.stringify(b.metrics().standbys)}`)
    })
    const moving = stateful(a).map((t) => t.taskId)
    expect(moving.length).toBeGreaterThan(0)
    expect(
      b
        .metrics()
        .standbys.map((x) => x.taskId)
        .sort(),
    ).toEqual(moving.sort())
    expect(b.metrics().standbys.reduce((n, x) => n + x.appliedRecords, 0)).toBeGreaterThan(0)
    // A persistent standby checkpoints what it applied, so a restart of b would start there too.
    if (persistent)
      await until('checkpoints of the standbys', () => moving.every((t) => existsSync(join(bDir, t, '.checkpoint'))))
    const restoredBefore = b.metrics().restore.totalRestoredRecords
    const changelog = await changelogSize(s.app, moving)

    // a is cut off: its client closes under it, so it commits and closes nothing.
    await doomedClient.close()
    await until(
      'b runs all six tasks, restored',
      () => {
        const tasks = b.metrics().tasks
        return tasks.length === 6 && tasks.every((t) => t.restored)
      },
      30_000,
    )
    const restoredByFailover = b.metrics().restore.totalRestoredRecords - restoredBefore
    // Without standbys b would read a's changelog partitions whole (over a hundred records).
    expect(changelog).toBeGreaterThan(100)
    expect(restoredByFailover).toBeLessThan(20)

    await produceLines(s.input, 1500, 300, expected)
    await until('the counts of all 1800 lines on b', counted(b), 30_000)
  }, 90_000)

  it('keeps the tasks it gives to a joining instance as standbys, and takes them back from them when it leaves', async () => {
    const s = await setup()
    const expected = new Map<string, number>()
    const a = new StreamsApp(wordCount(s, persistent), configOf(s, await tempDir(), client))
    const b = new StreamsApp(wordCount(s, persistent), configOf(s, await tempDir(), client))
    onTestFinished(async () => {
      await a.close().catch(() => {})
      await b.close().catch(() => {})
    })
    await a.start()
    await produceLines(s.input, 0, 1500, expected)
    await until('the counts of 1500 lines on a', () => holds([a], expected), 30_000)

    // b joins: the stateful tasks a hands over stay on a as standbys, from the state a had (no
    // read of the changelog from its start), and catch up.
    await b.start()
    await until(
      'three tasks each, restored, and standbys of all stateful tasks caught up',
      () =>
        [a, b].every((app) => app.metrics().tasks.length === 3 && app.metrics().tasks.every((t) => t.restored)) &&
        [a, b].every((app) => {
          const m = app.metrics()
          return m.standbys.every((x) => x.lag === 0) && m.standbys.length === 3 - stateful(app).length
        }),
      30_000,
    )
    const given = stateful(b).map((t) => t.taskId)
    expect(given.length).toBeGreaterThan(0)
    expect(
      a
        .metrics()
        .standbys.map((x) => x.taskId)
        .sort(),
    ).toEqual(given.sort())
    expect(a.metrics().restore.totalRestoredRecords).toBe(0)
    // Kept as they were, not opened afresh: nothing re-read from the changelogs (an in-memory
    // standby opened afresh would re-read them whole; a persistent one starts at its checkpoint).
    expect(a.metrics().standbys.map((x) => x.appliedRecords)).toEqual(given.map(() => 0))
    await produceLines(s.input, 1500, 300, expected)
    await until('the counts of 1800 lines over both', () => holds([a, b], expected), 30_000)
    await until("a's standbys caught up", () => a.metrics().standbys.every((x) => x.lag === 0 && x.appliedRecords > 0))

    // b leaves cleanly: a promotes its standbys and restores next to nothing.
    const restoredBefore = a.metrics().restore.totalRestoredRecords
    await b.close()
    await until('a runs all six tasks, restored', () => {
      const tasks = a.metrics().tasks
      return tasks.length === 6 && tasks.every((t) => t.restored)
    })
    expect(a.metrics().restore.totalRestoredRecords - restoredBefore).toBeLessThan(20)
    expect(a.metrics().standbys).toEqual([])
    await produceLines(s.input, 1800, 200, expected)
    await until('the counts of all 2000 lines on a', () => holds([a], expected), 30_000)
  }, 90_000)
})
