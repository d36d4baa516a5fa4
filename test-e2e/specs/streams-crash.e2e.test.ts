/**
 * A streams application across real processes (issue 17): a count per key over 6 input
 * partitions with two instances (streams-count-instance.mjs), one killed with SIGKILL while it
 * processes and started again on its state directory, while input keeps arriving. The final
 * counts in the output topic (the newest count per key) must equal the counts computed
 * directly from the input: nothing lost, and the records the killed instance had processed
 * but not committed are not counted twice (docs/streams.md §3). The same across a repartition
 * topic: streams-repartition-crash.e2e.test.ts.
 */
import { randomUUID } from 'node:crypto'
import { connect, type SluiceClient } from '@sluice/client'
import { spawnCluster, waitFor, type SpawnedCluster } from '@sluice/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  COUNT_INSTANCE,
  createTopics,
  inputFeeder,
  InstanceProcesses,
  latestCounts,
  requireBuiltStreams,
  stateDirs,
  waitForCounts,
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

describe('streams across processes', () => {
  it('a count over 6 partitions, two instances, one killed with SIGKILL mid-run and restarted: the final counts equal the input', async () => {
    const id = randomUUID().slice(0, 8)
    const app = `wc-e2e-${id}`
    const input = `lines-${id}`
    const output = `counts-${id}`
    await createTopics(client, [input, output], 6)
    const dirs = await stateDirs(2)
    const env = (dir: string): Record<string, string> => ({ APP: app, INPUT: input, OUTPUT: output, STATE_DIR: dir })
    const { expected, produce } = inputFeeder(client, input, (i) => {
      const word = `w${i % 97}`
      return { key: word, value: `line ${i}`, counts: [word] }
    })
    const { latest, records } = await latestCounts(client, output, 6)
    const a = processes.start(COUNT_INSTANCE, env(dirs[0]!))
    const b = processes.start(COUNT_INSTANCE, env(dirs[1]!))
    await waitFor(async () => a.started() && b.started(), { description: 'both instances started', timeoutMs: 60_000 })
    await produce(2000)
    // Mid-run: the first instance dies without closing anything while both work through a burst
    // (they commit every 300 ms; the count writes each update to its changelog at once).
    const seen = records()
    const burst = produce(30_000)
    await waitFor(async () => records() >= seen + 3000, { description: 'the burst being processed', timeoutMs: 60_000 })
    a.child.kill('SIGKILL')
    await burst
    await produce(5000)
    const a2 = processes.start(COUNT_INSTANCE, env(dirs[0]!))
    await waitFor(async () => a2.started(), { description: 'the killed instance restarted', timeoutMs: 60_000 })
    await produce(5000)

    await waitForCounts(latest, expected, [b, a2])
    expect([b, a2].some((i) => i.stopped())).toBe(false)
  }, 170_000)
})
