/**
 * Issue 19's page timings: the console's list pages and overview against a spawned cluster
 * (testkit's spawnCluster over the built dist/, one metadata service and one broker as separate
 * processes, admin ports on) holding 1,000 topics and 1,000 consumer groups, all real. The
 * console runs in this process, as `sluice console` would, and is asked over HTTP.
 *
 *   pnpm exec tsc -b bench && node bench/dist/console-timings.js [--topics 1000] [--groups 1000] [--runs 15] [--reverse]
 *
 * Each group is made by committing offsets for one of the topics (resetOffsets to the log start,
 * which the coordinator keeps as an Empty group with committed offsets), so the group pages read
 * real committed offsets and real log ends. One streams application runs (a count over the first
 * topic), so the streams page lists one application among the 1,001 groups. Every page is asked once (untimed) before any is
 * timed, then each is asked once more to warm up and `runs` times; the median, p90 and max are printed as a Markdown table (BENCHMARKS.md, "Issue 19:
 * console page timings") and written to bench/results/console-<timestamp>.json.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { SluiceClient } from '@sluice/client'
import { startConsoleServer } from '@sluice/console'
import { Serdes, StreamsApp, StreamsBuilder } from '@sluice/streams'
import { stopAll } from '@sluice/testkit'
import { startBenchCluster } from './bench-cluster.js'
import { describeMachine, machineInfo } from './machine.js'
import { writeResults } from './results.js'

interface Args {
  topics: number
  groups: number
  runs: number
  /** Time the pages in the opposite order (the first series timed is then the detail pages). */
  reverse: boolean
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { topics: 1000, groups: 1000, runs: 15, reverse: false }
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--reverse') {
      args.reverse = true
      continue
    }
    const name = argv[i]!.replace(/^--/, '')
    const v = Number(argv[++i])
    if ((name !== 'topics' && name !== 'groups' && name !== 'runs') || !Number.isInteger(v) || v < 1)
      throw new Error(`usage: console-timings [--topics n] [--groups n] [--runs n] [--reverse]; got ${argv[i - 1]}`)
    args[name] = v
  }
  return args
}

interface Timing {
  page: string
  path: string
  /** "50 of 1000" for a list page, "-" for the others. */
  rows: string
  medianMs: number
  p90Ms: number
  maxMs: number
}

/** Runs `work` over `items` with at most `width` at a time. */
async function inParallel<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]!)
    }),
  )
}

async function timePage(base: string, page: string, path: string, runs: number): Promise<Timing> {
  const ask = async (): Promise<{ ms: number; body: { items?: unknown[]; total?: number } }> => {
    const started = performance.now()
    const res = await fetch(`${base}${path}`)
    const body = (await res.json()) as { items?: unknown[]; total?: number }
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`)
    return { ms: performance.now() - started, body }
  }
  const warm = await ask()
  const ms: number[] = []
  for (let i = 0; i < runs; i++) ms.push((await ask()).ms)
  ms.sort((a, b) => a - b)
  const round = (n: number): number => Math.round(n * 10) / 10
  return {
    page,
    path,
    rows: warm.body.items === undefined ? '-' : `${warm.body.items.length} of ${warm.body.total}`,
    medianMs: round(ms[Math.floor(ms.length / 2)]!),
    p90Ms: round(ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.9))]!),
    maxMs: round(ms[ms.length - 1]!),
  }
}

/**
 * One running streams application (a count over one of the topics, in-memory store), so the
 * streams page has a row whose tasks and lag are computed; returns its closer.
 */
async function startStreamsApp(client: SluiceClient, input: string): Promise<() => Promise<void>> {
  const builder = new StreamsBuilder()
  builder
    .stream(input, { keySerde: Serdes.string(), valueSerde: Serdes.string() })
    .groupByKey()
    .count({ name: 'counts' })
  const stateDir = await mkdtemp(path.join(tmpdir(), 'sluice-bench-console-streams-'))
  const app = new StreamsApp(builder.build().plan('wordcount'), { applicationId: 'wordcount', client, stateDir })
  await app.start()
  return async () => {
    await app.close().catch(() => {})
    await rm(stateDir, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2))
  const machine = machineInfo()
  console.log(`console timings: ${args.topics} topics, ${args.groups} groups; ${describeMachine(machine)}`)
  const cluster = await startBenchCluster({ brokers: 1 })
  try {
    const admin = cluster.admin.admin()
    const topics = Array.from({ length: args.topics }, (_, i) => `orders-${String(i).padStart(4, '0')}`)
    let started = performance.now()
    for (let i = 0; i < topics.length; i += 100)
      await admin.createTopics(
        topics.slice(i, i + 100).map((name) => ({ name, numPartitions: 1, replicationFactor: 1 })),
      )
    for (;;) {
      const described = await admin.describeTopics(topics)
      if (described.every((t) => t.partitions.every((p) => p.leader >= 0))) break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    console.log(`${topics.length} topics led after ${Math.round(performance.now() - started)} ms`)
    // A few records in some topics, so sizes, counts and lag are not all zero.
    const producer = cluster.admin.producer({ acks: 1 })
    await inParallel(topics.slice(0, 100), 10, async (topic) => {
      await producer.send({ topic, records: Array.from({ length: 10 }, (_, i) => ({ value: `record ${i}` })) })
    })
    await producer.close()
    started = performance.now()
    const groups = Array.from({ length: args.groups }, (_, i) => `billing-${String(i).padStart(4, '0')}`)
    await inParallel(groups, 20, async (group) => {
      const topic = topics[groups.indexOf(group) % topics.length]!
      await admin.resetOffsets(group, { topic, to: 'earliest', dryRun: false })
    })
    const listed = (await admin.listGroups()).length
    console.log(
      `${groups.length} groups committed after ${Math.round(performance.now() - started)} ms (${listed} listed)`,
    )

    const stopStreams = await startStreamsApp(cluster.admin, topics[0]!)
    for (;;) {
      const [d] = await admin.describeGroups(['wordcount'])
      if (d?.state === 'Stable') break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    const consoleServer = await startConsoleServer({ bootstrap: cluster.bootstrap, port: 0 })
    const timings: Timing[] = []
    try {
      const pages: Array<[string, string]> = [
        ['topics, first page', '/api/topics?page=1&pageSize=50'],
        ['topics, last page', `/api/topics?page=${Math.ceil(args.topics / 50)}&pageSize=50`],
        ['topics, search "orders-09"', '/api/topics?search=orders-09&pageSize=50'],
        ['groups, first page', '/api/groups?page=1&pageSize=50'],
        ['groups, last page', `/api/groups?page=${Math.ceil(args.groups / 50)}&pageSize=50`],
        ['groups, search "billing-05"', '/api/groups?search=billing-05&pageSize=50'],
        ['streams applications, page 1', '/api/streams?page=1&pageSize=50'],
        ['cluster overview', '/api/cluster'],
        ['brokers', '/api/brokers'],
        ['one group (detail)', `/api/groups/${groups[7]}`],
        ['one topic (detail)', `/api/topics/${topics[7]}`],
      ]
      // One untimed pass over every page first, so no page's series starts while the cluster is
      // still busy with the setup (the groups' offset commits) or the console's first scrape.
      for (const [, path] of pages) await fetch(`${consoleServer.url}${path}`).then(async (r) => await r.text())
      for (const [page, path] of args.reverse ? [...pages].reverse() : pages) {
        const t = await timePage(consoleServer.url, page, path, args.runs)
        timings.push(t)
        console.log(`${page}: median ${t.medianMs} ms, p90 ${t.p90Ms} ms, max ${t.maxMs} ms (rows: ${t.rows})`)
      }
    } finally {
      await consoleServer.close()
      await stopStreams()
    }
    console.log('')
    console.log('| page | request | rows | median ms | p90 ms | max ms |')
    console.log('|---|---|---:|---:|---:|---:|')
    for (const t of timings)
      console.log(`| ${t.page} | \`${t.path}\` | ${t.rows} | ${t.medianMs} | ${t.p90Ms} | ${t.maxMs} |`)
    const file = await writeResults(`console-${new Date().toISOString().replace(/[:.]/g, '-')}`, {
      machine,
      args,
      timings,
    })
    console.log(`\nwritten to ${file}`)
  } finally {
    await cluster.stop()
  }
}

process.once('SIGINT', () => {
  void stopAll().finally(() => process.exit(130))
})
main().then(
  async () => {
    await stopAll()
  },
  async (err: unknown) => {
    console.error(err)
    await stopAll().catch(() => {})
    process.exitCode = 1
  },
)
