/**
 * Replication under faults, with real processes: one metadata service and three brokers wired
 * through TCP proxies (harness/fault-cluster.ts), a producer writing keyed `<key>:<seq>` records
 * with acks=all into a topic with replication factor 3 and min.insync.replicas 2, and a checker
 * that reads everything back after the cluster healed. Each scenario must end with zero
 * acknowledged records missing, zero duplicates, zero reordering, and every replica's files
 * equal to its leader's. Needs the built servers (`npx tsc -b`). Timeline and the CHECK line
 * are printed; SLUICE_E2E_KEEP=1 keeps the data dir and process logs.
 */
import { describe, expect, it, onTestFailed, onTestFinished } from 'vitest'
import { useFaultCluster, type FaultCluster, type FaultClusterOptions } from '../src/harness/fault-cluster.js'
import { isolateBroker, killLeader, rollingRestart, zombieLeader, type StepResult } from '../src/harness/faults.js'
import { finishWorkload, startWorkload, type Verdict } from '../src/harness/workload.js'

async function cluster(options?: FaultClusterOptions): Promise<FaultCluster> {
  const c = await useFaultCluster(onTestFinished, options)
  onTestFailed(() => {
    for (const ref of [...c.brokerIds, 'metadata' as const])
      console.log(`--- ${String(ref)} (last lines) ---\n${c.outputTail(ref, 15)}`)
  })
  return c
}

function expectSafe(verdict: Verdict, steps: StepResult[]): void {
  expect(steps.flatMap((s) => s.problems)).toEqual([])
  expect(verdict.report, verdict.text).toMatchObject({
    acknowledgedMissing: 0,
    offsetMismatch: 0,
    duplicates: 0,
    reordered: 0,
    phantom: 0,
  })
  expect(verdict.divergence, verdict.text).toEqual([])
  // The load ran across the fault: writes were acknowledged before, during and after it.
  expect(verdict.report.acknowledged).toBeGreaterThanOrEqual(400)
}

describe('replication faults (3 brokers, RF 3, min.insync.replicas 2, acks=all)', () => {
  it('(a) kill -9 of the leader of a busy partition loses no acknowledged record', async () => {
    const c = await cluster()
    const w = await startWorkload(c, { topic: 'faults-kill' })
    const step = await killLeader(c, w, 0, { restart: true })
    const verdict = await finishWorkload(c, w, 'kill-leader')
    expectSafe(verdict, [step])
  })

  it('(b) a SIGSTOPped leader is replaced, fenced when it wakes, and its unacknowledged tail truncated', async () => {
    const c = await cluster()
    const w = await startWorkload(c, { topic: 'faults-zombie' })
    const before = (await c.describe(w.topic)).partitions.find((p) => p.partition === 0)!
    const step = await zombieLeader(c, w, 0)
    const verdict = await finishWorkload(c, w, 'zombie-leader')
    const after = (await c.describe(w.topic)).partitions.find((p) => p.partition === 0)!
    expect(after.leaderEpoch).toBeGreaterThan(before.leaderEpoch)
    // Includes the zombie's copy: same records at the same offsets as the leader's, nothing more.
    expectSafe(verdict, [step])
  })

  it('(c) a broker cut off from its peers and the metadata service (held links) loses leadership and rejoins after heal', async () => {
    const c = await cluster()
    const w = await startWorkload(c, { topic: 'faults-isolate' })
    const step = await isolateBroker(c, w, 0, { mode: 'hold', heal: true })
    const verdict = await finishWorkload(c, w, 'isolate')
    expectSafe(verdict, [step])
  })

  it('(d) a rolling restart while writing loses nothing', async () => {
    const c = await cluster()
    const w = await startWorkload(c, { topic: 'faults-rolling' })
    const step = await rollingRestart(c, w)
    const verdict = await finishWorkload(c, w, 'rolling-restart')
    expectSafe(verdict, [step])
  })

  it('(e) the same isolation with followers on the gRPC fetch transport: the proxies cut that path too', async () => {
    const c = await cluster({ replicaFetchTransport: 'grpc' })
    const w = await startWorkload(c, { topic: 'faults-isolate-grpc' })
    const step = await isolateBroker(c, w, 0, { mode: 'hold', heal: true })
    const verdict = await finishWorkload(c, w, 'isolate-grpc')
    expectSafe(verdict, [step])
  })
})
