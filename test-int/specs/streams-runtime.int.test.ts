/**
 * The streams runtime (StreamsApp) against a REAL in-process cluster (one metadata service with
 * a fast group coordinator, one broker, 127.0.0.1 port 0): internal topics, processing, the
 * commit path, restore from the changelog on restart, the error policies, wall-clock
 * punctuation and the typed errors of a wrong internal topic or of topics that are not
 * co-partitioned. The topology is the runtime's hand-made word-count fixture
 * (@sluice/streams/runtime-fixtures), built against the task contract only.
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import type { Logger, SluiceClient } from '@sluice/client'
import { Serdes, StreamsApp, StreamsBuilder, StreamsError, changelogTopic, type StreamsConfig } from '@sluice/streams'
import { newProbe, repartitionTopicOf, wordCountPlan, type WordCountProbe } from '@sluice/streams/runtime-fixtures'
import { createTopicWithLeaders, until, type RealCluster } from '../src/client/real-cluster.js'
import { startStreamsCluster } from '../src/client/streams-cluster.js'

let cluster: RealCluster
let client: SluiceClient
const events: string[] = []

/** Keeps warnings, errors and restore lines for failure messages. */
const logger: Logger = (() => {
  const make = (): Logger => {
    const keep =
      (level: string) =>
      (obj: Record<string, unknown>, msg?: string): void => {
        const err = obj.err as Error | undefined
        events.push(`${Date.now() % 100000} ${level} ${msg ?? ''} ${err?.message ?? ''}`)
      }
    return { debug: () => {}, info: keep('INFO'), warn: keep('WARN'), error: keep('ERROR'), child: () => make() }
  }
  return make()
})()

beforeAll(async () => {
  cluster = await startStreamsCluster('sluice-streams-int-', 3)
  client = cluster.client
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
})

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-streams-state-'))
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true })
  })
  return dir
}

interface Setup {
  app: string
  input: string
  output: string
}

async function setup(partitions = 3): Promise<Setup> {
  const id = randomUUID().slice(0, 8)
  const s = { app: `wc-${id}`, input: `in-${id}`, output: `out-${id}` }
  await createTopicWithLeaders(client, s.input, partitions)
  await createTopicWithLeaders(client, s.output, partitions)
  return s
}

function newApp(
  s: Setup,
  stateDir: string,
  probe: WordCountProbe,
  extra: { persistent?: boolean; config?: Partial<StreamsConfig>; punctuateEveryMs?: number } = {},
): StreamsApp {
  const app = new StreamsApp(
    wordCountPlan({
      applicationId: s.app,
      input: s.input,
      output: s.output,
      persistent: extra.persistent ?? false,
      probe,
      ...(extra.punctuateEveryMs !== undefined ? { punctuateEveryMs: extra.punctuateEveryMs } : {}),
    }),
    {
      applicationId: s.app,
      client,
      stateDir,
      commitIntervalMs: 200,
      sessionTimeoutMs: 3000,
      heartbeatIntervalMs: 100,
      logger,
      ...extra.config,
    },
  )
  onTestFinished(async () => {
    await app.close().catch(() => {})
  })
  return app
}

/** Lines `a<i%7> b<i%3>` with keys spread over the partitions; returns the word counts they make. */
async function produceLines(topic: string, from: number, n: number, expected: Map<string, number>): Promise<void> {
  const producer = client.producer({ lingerMs: 1 })
  const records = Array.from({ length: n }, (_, j) => {
    const i = from + j
    const line = `a${i % 7} b${i % 3}`
    for (const w of line.split(' ')) expected.set(w, (expected.get(w) ?? 0) + 1)
    return { key: `k${i}`, value: line }
  })
  await producer.send({ topic, records })
  await producer.close()
}

/** The counts all live tasks of the probes hold (one probe per instance; a task lives on one at a time). */
function countsOf(probes: WordCountProbe | WordCountProbe[]): Map<string, number> {
  const all = new Map<string, number>()
  for (const probe of Array.isArray(probes) ? probes : [probes]) {
    for (const store of probe.stores.values()) for (const [k, v] of store.entries()) all.set(k, v)
  }
  return all
}

function sameCounts(a: Map<string, number>, b: Map<string, number>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v)
}

async function waitForCounts(
  probe: WordCountProbe | WordCountProbe[],
  expected: Map<string, number>,
  what: string,
): Promise<void> {
  await until(what, () => sameCounts(countsOf(probe), expected), 30_000).catch((err: Error) => {
    throw new Error(
      `${err.message}\nhave ${JSON.stringify([...countsOf(probe)])}\nwant ${JSON.stringify([...expected])}\n${events.slice(-20).join('\n')}`,
    )
  })
}

/** The newest value per key of a topic (what a table reading the output would hold). */
async function latestPerKey(topic: string, total: number): Promise<Map<string, number>> {
  const consumer = client.consumer({ offsetReset: 'earliest', maxWaitMs: 100 })
  onTestFinished(async () => {
    await consumer.close()
  })
  await consumer.assign([{ topic }])
  const latest = new Map<string, number>()
  let seen = 0
  for await (const m of consumer) {
    latest.set(m.key!.toString(), Number(m.value!.toString()))
    if (++seen >= total) break
  }
  return latest
}

describe('streams runtime: internal topics', () => {
  it('creates the repartition topic like its sub-topology input and the changelog compacted, one partition per task', async () => {
    const s = await setup(3)
    const probe = newProbe()
    const app = newApp(s, await tempDir(), probe)
    await app.start()
    const [rep, log] = await client.admin().describeTopics([repartitionTopicOf(s.app), changelogTopic(s.app, 'counts')])
    expect(rep!.partitions).toHaveLength(3)
    expect(log!.partitions).toHaveLength(3)
    expect(log!.configs.find((c) => c.name === 'cleanup.policy')?.value).toBe('compact')
    // Tasks: 0_0..0_2 (input) and 1_0..1_2 (repartition), all on this one instance.
    await until('six tasks restored', () => app.metrics().tasks.filter((t) => t.restored).length === 6)
    expect(
      app
        .metrics()
        .tasks.map((t) => t.taskId)
        .sort(),
    ).toEqual(['0_0', '0_1', '0_2', '1_0', '1_1', '1_2'])
  })

  it('gives a changelog the partition count of its own sub-topology input (a fixed repartition count)', async () => {
    const s = await setup(3)
    const app = new StreamsApp(
      wordCountPlan({ applicationId: s.app, input: s.input, output: s.output, repartitionPartitions: 2 }),
      { applicationId: s.app, client, stateDir: await tempDir(), commitIntervalMs: 200, logger },
    )
    onTestFinished(async () => {
      await app.close()
    })
    await app.start()
    const [rep, log] = await client.admin().describeTopics([repartitionTopicOf(s.app), changelogTopic(s.app, 'counts')])
    expect(rep!.partitions).toHaveLength(2)
    expect(log!.partitions).toHaveLength(2)
  })

  it('refuses an existing internal topic with the wrong partition count, and creates nothing', async () => {
    const s = await setup(3)
    const changelog = changelogTopic(s.app, 'counts')
    await createTopicWithLeaders(client, changelog, 1)
    const app = newApp(s, await tempDir(), newProbe())
    const err = await app.start().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(StreamsError)
    expect((err as StreamsError).code).toBe('TOPOLOGY')
    expect((err as StreamsError).message).toContain(changelog)
    expect((err as StreamsError).details).toMatchObject({
      problem: 'INTERNAL_TOPIC_PARTITIONS',
      topics: [{ topic: changelog, expected: 3, actual: 1 }],
    })
    expect(await client.admin().listTopics()).not.toContain(repartitionTopicOf(s.app))
    expect(app.state).toBe('failed')
  })

  it('refuses topics that must be co-partitioned but are not, naming them', async () => {
    const s = await setup(3)
    const other = `other-${randomUUID().slice(0, 8)}`
    await createTopicWithLeaders(client, other, 2)
    const base = wordCountPlan({ applicationId: s.app, input: s.input, output: s.output })
    const plan = {
      ...base,
      createTask: base.createTask,
      subtopologies: base.subtopologies.map((st) =>
        st.id === 0 ? { ...st, sourceTopics: [s.input, other], copartitionGroups: [[s.input, other]] } : st,
      ),
    }
    const app = new StreamsApp(plan, { applicationId: s.app, client, stateDir: await tempDir(), logger })
    onTestFinished(async () => {
      await app.close()
    })
    const err = (await app.start().catch((e: unknown) => e)) as StreamsError
    expect(err).toBeInstanceOf(StreamsError)
    expect(err.code).toBe('TOPOLOGY')
    expect(err.message).toContain(`${s.input} (3)`)
    expect(err.message).toContain(`${other} (2)`)
    expect(await client.admin().listTopics()).not.toContain(changelogTopic(s.app, 'counts'))
  })
})

describe('streams runtime: processing, commits and restore', () => {
  it('counts words, and a restart on the same state dir and on an empty one restores and goes on from the committed offsets', async () => {
    const s = await setup(3)
    const expected = new Map<string, number>()
    const stateDir = await tempDir()

    // Run 1: a persistent (file-backed) fixture store, from nothing.
    await produceLines(s.input, 0, 300, expected)
    const probe1 = newProbe()
    const app1 = newApp(s, stateDir, probe1, { persistent: true, config: { repartitionPurgeIntervalMs: 0 } })
    await app1.start()
    await waitForCounts(probe1, expected, 'run 1 counts')
    expect(app1.metrics().processed).toBe(300 + 600)
    await app1.close()
    expect(app1.state).toBe('closed')
    expect(await app1.stopped()).toBeUndefined()
    const committed = await client.admin().fetchOffsets(s.app, [s.input])
    expect(committed.reduce((n, o) => n + Number(o.offset), 0)).toBe(300)
    // Committed repartition records were deleted (the log start moved), as nobody reads them again.
    const starts = await client.admin().listOffsets([{ topic: repartitionTopicOf(s.app) }], 'earliest')
    expect(starts.reduce((n, o) => n + Number(o.offset), 0)).toBeGreaterThan(0)

    // Run 2: the same state dir. The files and the checkpoint agree with the changelog end, so
    // nothing needs restoring; the counts go on from the committed offsets.
    await produceLines(s.input, 300, 150, expected)
    const probe2 = newProbe()
    const app2 = newApp(s, stateDir, probe2, { persistent: true })
    await app2.start()
    await waitForCounts(probe2, expected, 'run 2 counts')
    expect(app2.metrics().restore.totalRestoredRecords).toBe(0)
    expect(app2.metrics().processed).toBe(150 + 300)
    await app2.close()

    // Run 3: an empty state dir and in-memory stores: everything comes back from the changelog.
    await produceLines(s.input, 450, 90, expected)
    const probe3 = newProbe()
    const app3 = newApp(s, await tempDir(), probe3)
    await app3.start()
    await waitForCounts(probe3, expected, 'run 3 counts')
    const restore = app3.metrics().restore
    // Every count ever written: one changelog record per word occurrence of runs 1 and 2 (not compacted yet).
    expect(restore.totalRestoredRecords).toBe(2 * 450)
    expect(restore.active).toBe(false)
    expect(restore.remainingRecords).toBe(0)
    expect(restore.recordsPerSecond).toBeGreaterThan(0)
    expect(events.some((e) => e.includes('restore done'))).toBe(true)
    await app3.close()

    // The output: the newest count per word equals the input's (every count was produced once per run).
    const totalOutputs = 2 * 540
    expect(sameCounts(await latestPerKey(s.output, totalOutputs), expected)).toBe(true)
  })

  it('shares the tasks between two instances and moves them on join and leave, counting nothing twice', async () => {
    const s = await setup(3)
    const expected = new Map<string, number>()
    const both = [newProbe(), newProbe()]
    const a = newApp(s, await tempDir(), both[0]!)
    await a.start()
    await produceLines(s.input, 0, 200, expected)
    await waitForCounts(both, expected, 'counts on one instance')

    // A second instance joins: the tasks are split, the moved ones restored from their changelogs.
    const b = newApp(s, await tempDir(), both[1]!)
    await b.start()
    await until('tasks on both instances', () => {
      const [na, nb] = [a.metrics().tasks.length, b.metrics().tasks.length]
      // The streams assignor balances whole tasks: 6 tasks (2 sub-topologies x 3 partitions), 3 each.
      return na + nb === 6 && Math.min(na, nb) === 3
    })
    await until('b restored', () => b.metrics().tasks.every((t) => t.restored))
    expect(b.metrics().restore.totalRestoredRecords).toBeGreaterThan(0)
    // The first instance gave every task up (eager) and, the assignment being sticky, got three
    // back from the very next generation: it resumed them with their stores as they were,
    // restoring nothing.
    expect(a.metrics().restore.totalRestoredRecords).toBe(0)
    expect(events.some((e) => e.includes('tasks resumed'))).toBe(true)
    await produceLines(s.input, 200, 100, expected)
    await waitForCounts(both, expected, 'counts over both instances')

    // The first leaves: everything runs on the second, which restores what it did not have.
    await a.close()
    await until('all six tasks on b', () => b.metrics().tasks.filter((t) => t.restored).length === 6)
    await produceLines(s.input, 300, 60, expected)
    await waitForCounts(both[1]!, expected, 'counts on the remaining instance')
  }, 60_000)

  it("stops with a typed error on a processing failure ('fail') and commits nothing past the record", async () => {
    const s = await setup(1)
    const producer = client.producer()
    onTestFinished(async () => {
      await producer.close()
    })
    await producer.send({
      topic: s.input,
      records: [{ value: 'x y' }, { value: 'x' }, { value: 'boom' }, { value: 'z' }],
    })
    const app = newApp(s, await tempDir(), newProbe())
    await app.start()
    const err = await app.stopped()
    expect(err).toBeInstanceOf(StreamsError)
    expect(err!.code).toBe('RUNTIME')
    expect(err!.details).toMatchObject({ topic: s.input, partition: 0, offset: '2' })
    expect(app.state).toBe('failed')
    const committed = await client.admin().fetchOffsets(s.app, [s.input])
    expect(committed.every((o) => o.offset <= 2n)).toBe(true)
  })

  it("skips and counts a record its serde cannot read with 'log-and-continue'; 'fail' stops on it", async () => {
    const s = await setup(1)
    const producer = client.producer()
    onTestFinished(async () => {
      await producer.close()
    })
    await producer.send({ topic: s.input, records: [{ value: 'p q' }, { value: '\u0000bad' }, { value: 'p' }] })
    const probe = newProbe()
    const app = newApp(s, await tempDir(), probe, { config: { deserializationErrors: 'log-and-continue' } })
    await app.start()
    await waitForCounts(
      probe,
      new Map([
        ['p', 2],
        ['q', 1],
      ]),
      'counts without the bad record',
    )
    expect(app.metrics().skipped).toBe(1)
    await app.close()

    const s2 = await setup(1)
    await producer.send({ topic: s2.input, records: [{ value: '\u0000bad' }] })
    const failing = newApp(s2, await tempDir(), newProbe())
    await failing.start()
    const err = await failing.stopped()
    expect(err?.code).toBe('SERDE')
  })

  it('runs wall-clock punctuations while no record arrives', async () => {
    const s = await setup(1)
    const probe = newProbe()
    const app = newApp(s, await tempDir(), probe, { punctuateEveryMs: 50 })
    await app.start()
    await until('five punctuations without input', () => probe.punctuations >= 5)
  })
})

describe('streams runtime: a DSL topology', () => {
  it('after a crash, a restore stops at the last commit and corrects the changelog past it: nothing counts twice', async () => {
    const s = await setup(3)
    const expected = new Map<string, number>()
    const before = newProbe()
    const a = newApp(s, await tempDir(), before)
    await a.start()
    await produceLines(s.input, 0, 200, expected)
    await waitForCounts(before, expected, 'counts before the crash')
    await a.close()
    // What an instance killed between writing its changelog and committing leaves behind: writes
    // past the last commit, one to a counted word and one to a word the input never had.
    const producer = client.producer({ acks: 'all' })
    await producer.send({
      topic: changelogTopic(s.app, 'counts'),
      records: [
        { key: 'a0', value: '999' },
        { key: 'ghost', value: '5' },
      ],
    })
    await producer.close()

    const after = newProbe()
    const b = newApp(s, await tempDir(), after)
    await b.start()
    await produceLines(s.input, 200, 100, expected)
    // Without the bound, a0 would start from 999 and ghost would be counted.
    await waitForCounts(after, expected, 'counts after the restart')
    expect(events.some((e) => e.includes('past the last commit'))).toBe(true)
    await b.close()

    // The corrections are in the changelog: a third instance restores the same counts.
    const third = newProbe()
    const c = newApp(s, await tempDir(), third)
    await c.start()
    await waitForCounts(third, expected, 'counts restored by a third instance')
  })

  it('runs a word count built with StreamsBuilder, and a restart restores its cached store from the changelog', async () => {
    const s = await setup(3)
    const expected = new Map<string, number>()
    const build = () => {
      const builder = new StreamsBuilder()
      builder
        .stream(s.input, { keySerde: Serdes.string(), valueSerde: Serdes.string() })
        .flatMapValues((line) => line.split(' '))
        .groupBy((_key, word) => word, { name: 'words', keySerde: Serdes.string(), valueSerde: Serdes.string() })
        .count({ name: 'counts' })
        .toStream()
        .to(s.output, { keySerde: Serdes.string(), valueSerde: Serdes.long() })
      return builder.build()
    }
    const config = (stateDir: string): StreamsConfig => ({
      applicationId: s.app,
      client,
      stateDir,
      commitIntervalMs: 200,
      sessionTimeoutMs: 3000,
      heartbeatIntervalMs: 100,
      logger,
    })
    const latest = new Map<string, number>()
    const reader = client.consumer({ offsetReset: 'earliest', maxWaitMs: 100 })
    onTestFinished(async () => {
      await reader.close()
    })
    await reader.assign([{ topic: s.output }])
    const run = reader.run({
      eachMessage: ({ message }) => {
        latest.set(message.key!.toString(), Serdes.long().deserialize(message.value!, s.output))
      },
    })
    onTestFinished(async () => {
      await run.stop()
    })
    const outputMatches = (what: string) =>
      until(what, () => sameCounts(latest, expected), 30_000).catch((err: Error) => {
        throw new Error(`${err.message}\nhave ${JSON.stringify([...latest])}\nwant ${JSON.stringify([...expected])}`)
      })

    await produceLines(s.input, 0, 200, expected)
    const app1 = new StreamsApp(build(), config(await tempDir()))
    onTestFinished(async () => {
      await app1.close().catch(() => {})
    })
    await app1.start()
    await outputMatches('the counts of the first 200 lines')
    const [rep] = await client.admin().describeTopics([`${s.app}-words-repartition`])
    expect(rep!.partitions).toHaveLength(3)
    await app1.close()

    // An empty state dir: the in-memory store comes back from its changelog, and the count goes on.
    await produceLines(s.input, 200, 100, expected)
    const app2 = new StreamsApp(build(), config(await tempDir()))
    onTestFinished(async () => {
      await app2.close().catch(() => {})
    })
    await app2.start()
    await outputMatches('the counts of all 300 lines')
    expect(app2.metrics().restore.totalRestoredRecords).toBeGreaterThan(0)
    await app2.close()
  })
})
