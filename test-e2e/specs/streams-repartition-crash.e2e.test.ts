/**
 * Exact counts across a repartition topic, with real processes (issue 17): a word count
 * (streams-word-count-instance.mjs: flatMapValues -> groupBy(word) through
 * `<app>-words-repartition` -> count) over 6 input partitions.
 *
 * - Two instances, one killed with SIGKILL mid-run and started again on its state directory
 *   while input keeps arriving. The killed instance had written repartition records for input it
 *   never committed; its successor processes that input again and writes them a second time.
 *   The downstream skips them by their stamps (docs/streams.md §3), so the final counts (the
 *   newest count per word in the output) equal the counts computed from the input.
 * - Both instances killed one after the other (the first frozen, then both SIGKILLed) and
 *   restarted: the second one's downstream tasks had committed what the first wrote past its
 *   commit, so the upstream re-run's records come after the downstream's commit, and only the
 *   positions committed with it skip them.
 * - A third instance joining a running two-instance word count: tasks move (each committed and
 *   closed where it ran, created from its commit where it goes), nothing is counted twice.
 */
import { randomUUID } from 'node:crypto'
import { connect, type SluiceClient } from '@sluice/client'
import { spawnCluster, waitFor, type SpawnedCluster } from '@sluice/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createTopics,
  inputFeeder,
  type Instance,
  InstanceProcesses,
  latestCounts,
  requireBuiltStreams,
  stateDirs,
  waitForCounts,
  WORD_COUNT_INSTANCE,
} from './streams-instances.js'

let cluster: SpawnedCluster
let client: SluiceClient
const processes = new InstanceProcesses(() => cluster.bootstrap)

beforeAll(async () => {
  requireBuiltStreams()
  cluster = await spawnCluster({ brokers: 2 })
  client = await connect({
    bootstrap: cluster.bootstrap,
    retry: { retries: 20, initialBackoffMs: 100, maxBackoffMs: 1000 },
  })
})

afterAll(async () => {
  processes.killAll()
  await client?.close().catch(() => {})
  await cluster?.stop()
})

/** A word count's topics, input and output reader; line i holds three words of a small vocabulary. */
async function wordCount(name: string, extraEnv: Record<string, string> = {}) {
  const id = randomUUID().slice(0, 8)
  const app = `${name}-${id}`
  const input = `lines-${id}`
  const output = `word-counts-${id}`
  await createTopics(client, [input, output], 6)
  const words = (i: number): string[] => [`a${i % 89}`, `b${(i * 31) % 61}`, `c${i % 7}`]
  const feeder = inputFeeder(client, input, (i) => ({ key: `line-${i}`, value: words(i).join(' '), counts: words(i) }))
  const out = await latestCounts(client, output, 6)
  const env = (dir: string): Record<string, string> => ({
    APP: app,
    INPUT: input,
    OUTPUT: output,
    STATE_DIR: dir,
    ...extraEnv,
  })
  const start = (dir: string): Instance => processes.start(WORD_COUNT_INSTANCE, env(dir))
  return { ...feeder, ...out, start }
}

/** The largest number of duplicates the instances' live tasks reported at once (a lower bound). */
function duplicatesSeen(instances: readonly Instance[]): number {
  return instances.reduce((n, i) => n + Number(i.metrics()?.duplicatesSkipped ?? 0), 0)
}

function tasksOf(i: Instance): string[] {
  return (i.metrics()?.tasks as string[] | undefined) ?? []
}

/**
 * Waits until the instances run all 12 tasks between them (no rebalance under way: during one,
 * tasks are committed and suspended, and a kill would leave nothing uncommitted), then until
 * `records` more counts came out.
 */
async function processingSteadily(wc: { records(): number }, instances: readonly Instance[], records: number) {
  const running = (): boolean => {
    const tasks = instances.flatMap(tasksOf)
    return tasks.length === 12 && new Set(tasks).size === 12 && instances.every((i) => tasksOf(i).length > 0)
  }
  await waitFor(async () => running(), { description: 'all 12 tasks running', timeoutMs: 60_000 })
  const seen = wc.records()
  await waitFor(async () => wc.records() >= seen + records && running(), {
    description: 'the input being processed',
    timeoutMs: 60_000,
  })
}

/** Produces 200 lines every 50 ms until stop() (which waits for the last send). */
function keepProducing(wc: { produce(n: number): Promise<unknown> }): { stop(): Promise<void> } {
  let feeding = true
  const loop = (async () => {
    while (feeding) {
      await wc.produce(200)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })()
  return {
    stop: async () => {
      feeding = false
      await loop
    },
  }
}

async function started(instances: readonly Instance[], what: string): Promise<void> {
  await waitFor(async () => instances.every((i) => i.started()), { description: what, timeoutMs: 60_000 })
}

describe('streams word count across processes (a repartition topic between the tasks)', () => {
  it('two instances, one killed with SIGKILL mid-run and restarted: the final counts equal the input', async () => {
    // Commits every 1.5 s, so the killed instance surely leaves repartition records of input it
    // never committed (its successor writes them again).
    const wc = await wordCount('wc-rep-kill', { COMMIT_MS: '1500' })
    const dirs = await stateDirs(2)
    const a = wc.start(dirs[0]!)
    const b = wc.start(dirs[1]!)
    await started([a, b], 'both instances started')
    await wc.produce(1000)
    // Input keeps arriving (a trickle of 200 lines every 50 ms) through the kills and restarts.
    const trickle = keepProducing(wc)
    let a2: Instance | undefined
    const skipped = new Map<Instance, number>()
    const watch = setInterval(() => {
      for (const i of [b, a2]) if (i !== undefined) skipped.set(i, Math.max(skipped.get(i) ?? 0, duplicatesSeen([i])))
    }, 200)
    try {
      // Mid-run: the first instance dies without closing anything while both process.
      await processingSteadily(wc, [a, b], 3000)
      const killedTasks = tasksOf(a)
      a.child.kill('SIGKILL')
      const inputArrives = async (lines: number, what: string): Promise<void> => {
        const from = wc.produced()
        await waitFor(async () => wc.produced() >= from + lines, { description: what, timeoutMs: 30_000 })
      }
      await inputArrives(4000, 'input arriving while the instance is down')
      a2 = wc.start(dirs[0]!)
      await started([a2], 'the killed instance restarted')
      await inputArrives(2000, 'input arriving after the restart')
      await trickle.stop()
      await wc.produce(2000)
      await waitForCounts(wc.latest, wc.expected, [b, a2])
      expect([b, a2].some((i) => i.stopped())).toBe(false)
      // It ran upstream tasks (0_x) that wrote past their last commit: their successors' re-run
      // was skipped. The instances print metrics every 500 ms, so the count may show a little after
      // the counts are exact (and it is a lower bound: a task closed since took its count along).
      const total = (): number => [...skipped.values()].reduce((n, v) => n + v, 0)
      if (killedTasks.some((t) => t.startsWith('0_')))
        await waitFor(async () => total() > 0, { description: 'duplicates skipped', timeoutMs: 10_000 })
      const words = [...wc.expected.values()].reduce((n, v) => n + v, 0)
      console.log(
        `word count after a SIGKILL: ${words} words (${wc.expected.size} distinct) counted exactly; ` +
          `the killed instance ran ${killedTasks.join(',')}; duplicates skipped (seen live): ${total()}`,
      )
    } finally {
      clearInterval(watch)
      await trickle.stop()
    }
  }, 170_000)

  it('both instances killed one after the other and restarted: the downstream resumes its committed positions, the counts equal the input', async () => {
    // The second instance's downstream tasks apply and commit what the first one wrote past its
    // last commit; then it dies too. The upstream re-run comes after that commit, so only the
    // positions committed with it (not the ones in the dead process) can tell its records apart.
    // Commits every 500 ms, so the second commits within the first one's freeze.
    const wc = await wordCount('wc-rep-kill2', { COMMIT_MS: '500' })
    const dirs = await stateDirs(2)
    const a = wc.start(dirs[0]!)
    const b = wc.start(dirs[1]!)
    await started([a, b], 'both instances started')
    await wc.produce(1000)
    // Input keeps arriving (a trickle of 200 lines every 50 ms) through the kills and restarts.
    const trickle = keepProducing(wc)
    const inputArrives = async (lines: number, what: string): Promise<void> => {
      const from = wc.produced()
      await waitFor(async () => wc.produced() >= from + lines, { description: what, timeoutMs: 30_000 })
    }
    try {
      await processingSteadily(wc, [a, b], 3000)
      // Frozen first (SIGSTOP: it stays in the group until its session times out, so nobody runs
      // its upstream tasks again yet) while the second applies and commits what it wrote; then
      // both die.
      a.child.kill('SIGSTOP')
      await inputArrives(3000, 'input arriving while the first instance is frozen')
      b.child.kill('SIGKILL')
      a.child.kill('SIGKILL')
      await inputArrives(2000, 'input arriving while both are down')
      const a2 = wc.start(dirs[0]!)
      const b2 = wc.start(dirs[1]!)
      await started([a2, b2], 'both instances restarted')
      await inputArrives(2000, 'input arriving after the restart')
      await trickle.stop()
      await wc.produce(2000)
      await waitForCounts(wc.latest, wc.expected, [a2, b2])
      expect([a2, b2].some((i) => i.stopped())).toBe(false)
    } finally {
      await trickle.stop()
    }
  }, 170_000)

  it('a third instance joins a running two-instance word count: tasks move, nothing is counted twice', async () => {
    const wc = await wordCount('wc-rep-join')
    const dirs = await stateDirs(3)
    const a = wc.start(dirs[0]!)
    const b = wc.start(dirs[1]!)
    await started([a, b], 'both instances started')
    await wc.produce(3000)
    const before = wc.records()
    const burst = wc.produce(8000)
    await waitFor(async () => wc.records() >= before + 2000, {
      description: 'the burst being processed',
      timeoutMs: 60_000,
    })
    const c = wc.start(dirs[2]!)
    await burst
    await started([c], 'the third instance started')
    // The third instance gets tasks of its own (12 tasks: 6 of each sub-topology).
    await waitFor(async () => tasksOf(c).length > 0, {
      description: 'tasks moved to the third instance',
      timeoutMs: 60_000,
    })
    await wc.produce(3000)
    await waitForCounts(wc.latest, wc.expected, [a, b, c])
    expect([a, b, c].some((i) => i.stopped())).toBe(false)
    const tasks = [a, b, c].map((i) => tasksOf(i).length)
    console.log(`word count with a third instance: ${wc.expected.size} words exact; tasks per instance ${tasks}`)
  }, 170_000)
})
