/**
 * A windowed aggregation on a REAL in-process cluster (one metadata service, one broker,
 * 127.0.0.1 port 0) through the DSL and StreamsApp: page views per user per one-minute window
 * with 10 s grace, suppressed until each window closes. Out-of-order records inside the grace
 * are counted, later ones dropped and counted, each window's final count is written once; and
 * after a restart (the window store restored from its changelog, the suppress buffer rebuilt
 * from the store) the windows that were open before it are still emitted when they close, and
 * the windows closed before it stay closed (stream time carried by the commit).
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SluiceClient } from '@sluice/client'
import {
  Serdes,
  type StreamsApp,
  StreamsBuilder,
  TimeWindows,
  changelogTopic,
  unbounded,
  untilWindowCloses,
  windowedSerde,
} from '@sluice/streams'
import { createTopicWithLeaders, readMessages, until, type RealCluster } from '../src/client/real-cluster.js'
import { startStreamsCluster, startTestStreamsApp } from '../src/client/streams-cluster.js'

const MINUTE = 60_000
let cluster: RealCluster
let client: SluiceClient

beforeAll(async () => {
  cluster = await startStreamsCluster('sluice-streams-windows-int-')
  client = cluster.client
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
})

interface Setup {
  readonly app: string
  readonly input: string
  readonly output: string
  /** A minute boundary near now, so broker retention never deletes the test's records. */
  readonly base: number
}

async function setup(): Promise<Setup> {
  const id = randomUUID().slice(0, 8)
  // One partition: one task, so one stream time decides every window.
  const s = { app: `views-${id}`, input: `page-views-${id}`, output: `views-per-minute-${id}` }
  await createTopicWithLeaders(client, s.input, 1)
  await createTopicWithLeaders(client, s.output, 1)
  return { ...s, base: Math.floor(Date.now() / MINUTE) * MINUTE }
}

async function startApp(s: Setup): Promise<StreamsApp> {
  const builder = new StreamsBuilder()
  builder
    .stream(s.input, { keySerde: Serdes.string(), valueSerde: Serdes.string() })
    .groupByKey()
    .windowedBy(TimeWindows.ofSizeAndGrace(MINUTE, 10_000))
    .count({ name: 'views-per-minute' })
    .suppress(untilWindowCloses(unbounded()), { name: 'final-views' })
    .toStream()
    .to(s.output, { valueSerde: Serdes.long() })
  return await startTestStreamsApp(client, builder.build().plan(s.app), s.app)
}

/** Views as (user, ms after the base minute); sent in this order to the one partition. */
async function produce(s: Setup, views: readonly (readonly [string, number])[]): Promise<void> {
  const producer = client.producer({ lingerMs: 1 })
  await producer.send({
    topic: s.input,
    records: views.map(([user, at]) => ({ key: user, value: '/page', timestamp: s.base + at })),
  })
  await producer.close()
}

/** The output's first `n` records as [user, window start - base, count]. */
async function finals(s: Setup, n: number): Promise<[string, number, number][]> {
  const keys = windowedSerde(Serdes.string())
  const messages = await readMessages(client, s.output, n, { maxWaitMs: 100 })
  return messages.map((m) => {
    const key = keys.deserialize(m.key!, s.output)
    return [key.key, key.window.start - s.base, Serdes.long().deserialize(m.value!, s.output)]
  })
}

describe('streams windows on a real cluster', () => {
  it('counts views per user per minute: out of order inside the grace counted, later dropped, one final count per window', async () => {
    const s = await setup()
    const app = await startApp(s)
    await produce(s, [
      ['alice', 1_000],
      ['alice', 20_000],
      ['bob', 59_000],
      ['alice', 62_000],
      ['bob', 58_000], // out of order, inside the grace
      ['carol', 70_000], // stream time reaches the first minute's end + grace: it closes
      ['alice', 30_000], // the first minute is closed: dropped
      ['alice', 119_999],
      ['bob', 130_000], // the second minute closes
    ])
    await until('nine records processed', () => app.metrics().processed === 9, 30_000)
    // Output is acknowledged before a commit: after one more commit the topic holds all of it.
    const commits = app.metrics().commits
    await until('a commit after the last record', () => app.metrics().commits > commits, 30_000)
    const [end] = await client.admin().listOffsets([{ topic: s.output }], 'latest')
    expect(end!.offset).toBe(4n) // one final count per window, nothing emitted twice
    expect(await finals(s, 4)).toEqual([
      ['alice', 0, 2],
      ['bob', 0, 2],
      ['alice', MINUTE, 2],
      ['carol', MINUTE, 1],
    ])
    expect(app.metrics()).toMatchObject({ droppedLate: 1, outOfOrder: 1 })
    // The window store answers interactive queries: the windows it still keeps (size + grace
    // behind stream time, so the first minute is gone), the late record in none of them.
    const views = app.windowStore<string, number>('views-per-minute')
    expect(views.fetch('alice', s.base + MINUTE)).toBe(2)
    expect(views.fetch('carol', s.base + MINUTE)).toBe(1)
    expect(views.fetch('bob', s.base + 2 * MINUTE)).toBe(1)
    expect(views.fetch('alice', s.base)).toBeUndefined()
    expect(
      [...views.fetchRange('alice', s.base, s.base + 2 * MINUTE)].map((w) => [w.windowStart - s.base, w.value]),
    ).toEqual([[MINUTE, 2]])
    expect(() => app.store('views-per-minute')).toThrow(/window store/)
    const [log] = await client.admin().describeTopics([changelogTopic(s.app, 'views-per-minute')])
    expect(log!.configs.find((c) => c.name === 'cleanup.policy')?.value).toBe('compact,delete')
  })

  it('emits the windows that were open before a restart when they close after it', async () => {
    const s = await setup()
    const first = await startApp(s)
    await produce(s, [
      ['alice', 1_000],
      ['alice', 20_000],
      ['bob', 59_000],
    ])
    await until('three records processed', () => first.metrics().processed === 3, 30_000)
    await first.close() // commits: the counts are in the changelog, the suppress buffer is gone
    const second = await startApp(s) // a new state dir: the store is restored from its changelog
    // The first record after the restart rebuilds the buffer; the next one closes the first minute.
    await produce(s, [
      ['dave', 65_000],
      ['carol', 75_000],
    ])
    await until('the two records processed', () => second.metrics().processed === 2, 30_000)
    expect(await finals(s, 2)).toEqual([
      ['alice', 0, 2],
      ['bob', 0, 1],
    ])
  })

  it('keeps windows closed across a restart: a late record after it is dropped, nothing emitted twice', async () => {
    const s = await setup()
    const first = await startApp(s)
    await produce(s, [
      ['alice', 1_000],
      ['carol', 75_000], // closes the first minute: its final count is emitted
    ])
    await until('two records processed', () => first.metrics().processed === 2, 30_000)
    await first.close() // the commit carries stream time 75 s after the base
    const second = await startApp(s)
    await produce(s, [
      ['alice', 2_000], // the first minute closed before the restart: dropped, not reopened
      ['bob', 130_000], // closes the second minute
    ])
    await until('the two records processed', () => second.metrics().processed === 2, 30_000)
    await until(
      'the second minute emitted',
      async () => {
        const [end] = await client.admin().listOffsets([{ topic: s.output }], 'latest')
        return end!.offset >= 2n
      },
      30_000,
    )
    expect(await finals(s, 2)).toEqual([
      ['alice', 0, 1],
      ['carol', MINUTE, 1],
    ])
    expect(second.metrics()).toMatchObject({ droppedLate: 1 })
    const [end] = await client.admin().listOffsets([{ topic: s.output }], 'latest')
    expect(end!.offset).toBe(2n)
  })
})
