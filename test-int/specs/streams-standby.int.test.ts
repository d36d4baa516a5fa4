/**
 * Standby tasks (numStandbyReplicas 1) against a REAL in-process cluster: two instances of a
 * word count built with StreamsBuilder, each keeping standby copies of the other's stateful
 * tasks up to date from their changelogs. The instance running half the counts loses its
 * connection to the cluster at once (its client is closed under it: nothing is committed or
 * closed cleanly), and the other takes its tasks over from its standbys: the restore after the
 * failover reads only what the standbys had not applied (nothing here), not the changelogs,
 * and the counts go on exactly. With an in-memory and with a persistent (lmdb) store.
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

describe.each([
  ['in memory', false],
  ['persistent', true],
] as const)('streams standby tasks (%s store)', (_kind, persistent) => {
  it('keeps standbys up to date, and a failover to them restores only their small tail; the counts stay exact', async () => {
    const id = randomUUID().slice(0, 8)
    const s = { app: `sb-${id}`, input: `in-${id}`, output: `out-${id}` }
    await createTopicWithLeaders(client, s.input, 3)
    await createTopicWithLeaders(client, s.output, 3)
    const build = () => {
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
    const config = (stateDir: string, c: SluiceClient): StreamsConfig => ({
      applicationId: s.app,
      client: c,
      stateDir,
      numStandbyReplicas: 1,
      commitIntervalMs: 200,
      sessionTimeoutMs: 3000,
      heartbeatIntervalMs: 100,
      logger: quiet,
    })
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
    const counted = (app: StreamsApp) => () =>
      [...expected].every(([w, n]) => {
        try {
          return app.store<string, number>('counts').get(w) === n
        } catch {
          return false
        }
      })
    const stateful = (app: StreamsApp) => app.metrics().tasks.filter((t) => t.taskId.startsWith('1_'))
    const countedOnBoth = () =>
      [...expected].every(([w, n]) =>
        [a, b].some((app) => {
          try {
            return app.store<string, number>('counts').get(w) === n
          } catch {
            return false
          }
        }),
      )

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
})
