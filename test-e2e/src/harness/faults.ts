/**
 * The faults of the suite as steps over a running workload. Each step injects its fault, waits
 * for the cluster to react (a new leader) and for writes to be acknowledged again, then undoes
 * the fault where the scenario says so. Waiting on acknowledgements after the fault is what makes
 * "no acknowledged record lost" meaningful: acks=all writes were accepted across the failover.
 */
import { waitFor } from '@sluice/testkit'
import type { FaultCluster } from './fault-cluster.js'
import type { Rng } from './random.js'
import type { Workload } from './workload.js'

/** Records acknowledged after a fault before the step counts the cluster as writable again. */
const ACKS_AFTER_FAULT = 150

export interface StepResult {
  /** What was done, for the timeline and the soak table. */
  readonly what: string
  /** Things the step itself found wrong (beyond what the checker will find). */
  readonly problems: string[]
}
const REACT_TIMEOUT_MS = 30_000

/**
 * The partition's leader once it has at least one in-sync follower: a fault on a leader whose
 * ISR is itself alone would take the partition offline by design (no clean election possible),
 * which is not what these steps test.
 */
async function leaderWithFollower(cluster: FaultCluster, w: Workload, partition: number): Promise<number> {
  return await waitFor(
    async () => {
      const p = (await cluster.describe(w.topic)).partitions.find((x) => x.partition === partition)
      return p !== undefined && p.leader >= 0 && p.isr.length >= 2 ? p.leader : undefined
    },
    { timeoutMs: 60_000, description: `${w.topic}-${partition} to have a leader and an in-sync follower` },
  )
}

/** kill -9 the leader of `partition` while it takes writes; optionally start it again afterwards. */
export async function killLeader(
  cluster: FaultCluster,
  w: Workload,
  partition: number,
  options: { restart: boolean },
): Promise<StepResult> {
  await w.load.waitForMoreAcks(100, { description: 'writes before the kill' })
  const leader = await leaderWithFollower(cluster, w, partition)
  await cluster.kill(leader)
  const next = await cluster.waitForNewLeader(w.topic, partition, leader, REACT_TIMEOUT_MS)
  await w.load.waitForMoreAcks(ACKS_AFTER_FAULT, { description: `writes after killing broker ${leader}` })
  if (options.restart) await cluster.start(leader)
  return { what: `kill -9 leader ${leader} of p${partition} -> ${next}`, problems: [] }
}

/**
 * SIGSTOP the leader past its session timeout, so the controller elects another and the producer
 * moves on; then SIGCONT it. Requests the producer had sent to it are still in its socket and
 * reach it on wake-up, as a zombie leader's would: fencing must keep them from being
 * acknowledged as written (the checker would find them missing) and truncation must drop its
 * unacknowledged tail (the replica comparison would find the divergence).
 */
export async function zombieLeader(cluster: FaultCluster, w: Workload, partition: number): Promise<StepResult> {
  await w.load.waitForMoreAcks(100, { description: 'writes before the pause' })
  const leader = await leaderWithFollower(cluster, w, partition)
  cluster.pause(leader)
  const next = await cluster.waitForNewLeader(w.topic, partition, leader, REACT_TIMEOUT_MS)
  await w.load.waitForMoreAcks(ACKS_AFTER_FAULT, { description: `writes while broker ${leader} is stopped` })
  cluster.resume(leader)
  await w.load.waitForMoreAcks(ACKS_AFTER_FAULT, { description: `writes after broker ${leader} woke up` })
  return { what: `SIGSTOP leader ${leader} of p${partition} -> ${next}, SIGCONT`, problems: [] }
}

/** How long an isolation lasts at least: past two session timeouts, so a reconnect attempt would have happened. */
const ISOLATION_MIN_MS = 8_000

/**
 * Cuts the leader of `partition` off from the metadata service and its peers, keeps it cut off
 * while writes go on elsewhere (at least ISOLATION_MIN_MS), then heals if asked. While cut off
 * it must not be registered with the metadata service; every sample that finds it registered
 * means it reached the service around its proxy, and is reported as a problem.
 */
export async function isolateBroker(
  cluster: FaultCluster,
  w: Workload,
  partition: number,
  options: { mode: 'hold' | 'drop'; heal: boolean },
): Promise<StepResult> {
  await w.load.waitForMoreAcks(100, { description: 'writes before the isolation' })
  const leader = await leaderWithFollower(cluster, w, partition)
  const isolatedAt = Date.now()
  cluster.isolate(leader, options.mode)
  const next = await cluster.waitForNewLeader(w.topic, partition, leader, REACT_TIMEOUT_MS)
  const acks = w.load.waitForMoreAcks(ACKS_AFTER_FAULT, { description: `writes while broker ${leader} is isolated` })
  // The new leader may come from an unrelated preferred-leader election before the isolated
  // broker's session has even expired, so samples count only once it was seen unregistered:
  // registered again after that means it reached the service around its proxy.
  let dropped = false
  let leaked = 0
  let samples = 0
  await waitFor(
    async () => {
      const registered = (await cluster.admin.describeCluster()).brokers.some((b) => b.brokerId === leader)
      samples++
      if (!registered) dropped = true
      else if (dropped) leaked++
      return Date.now() - isolatedAt >= ISOLATION_MIN_MS && dropped
    },
    {
      timeoutMs: ISOLATION_MIN_MS + 10_000,
      intervalMs: 250,
      description: `the isolation period, until broker ${leader} lost its registration`,
    },
  )
  await acks
  const problems =
    leaked > 0
      ? [
          `isolated broker ${leader} was registered with the metadata service again in ${leaked} of ${samples} samples after losing its registration: it reached the service around its proxy`,
        ]
      : []
  if (options.heal) cluster.heal()
  return {
    what: `isolate (${options.mode}) leader ${leader} of p${partition} -> ${next}${options.heal ? ', heal' : ''}`,
    problems,
  }
}

/** Restarts every broker in turn (clean stop), each only once the previous one is back in every ISR. */
export async function rollingRestart(cluster: FaultCluster, w: Workload): Promise<StepResult> {
  for (const id of cluster.brokerIds) {
    await w.load.waitForMoreAcks(100, { description: `writes before restarting broker ${id}` })
    await cluster.restart(id, { signal: 'SIGTERM' })
    await cluster.waitForHealthy(w.topic, 60_000)
    cluster.log(`broker-${id} back in every ISR: ${await cluster.summary(w.topic)}`)
  }
  await w.load.waitForMoreAcks(ACKS_AFTER_FAULT, { description: 'writes after the rolling restart' })
  return { what: `rolling restart of ${cluster.brokerIds.join(', ')}`, problems: [] }
}

export type FaultKind =
  | 'kill-leader'
  | 'zombie-leader'
  | 'isolate-hold'
  | 'isolate-drop'
  | 'restart-one'
  | 'kill-follower'

const KINDS: readonly FaultKind[] = [
  'kill-leader',
  'zombie-leader',
  'isolate-hold',
  'isolate-drop',
  'restart-one',
  'kill-follower',
]

/**
 * One random step: a fault on a random partition's leader (or a follower), its undoing, and a
 * wait for a full ISR unless the dice say to stack the next fault on a still-recovering cluster.
 */
export async function randomStep(cluster: FaultCluster, w: Workload, rng: Rng): Promise<StepResult> {
  const kind = rng.pick(KINDS)
  const partition = rng.int(0, w.partitions - 1)
  let result: StepResult
  switch (kind) {
    case 'kill-leader':
      result = await killLeader(cluster, w, partition, { restart: true })
      break
    case 'zombie-leader':
      result = await zombieLeader(cluster, w, partition)
      break
    case 'isolate-hold':
    case 'isolate-drop':
      result = await isolateBroker(cluster, w, partition, {
        mode: kind === 'isolate-hold' ? 'hold' : 'drop',
        heal: true,
      })
      break
    case 'restart-one': {
      const id = rng.pick(cluster.brokerIds)
      await w.load.waitForMoreAcks(100, { description: `writes before restarting broker ${id}` })
      await cluster.restart(id, { signal: rng.pick(['SIGTERM', 'SIGKILL'] as const) })
      result = { what: `restart broker ${id}`, problems: [] }
      break
    }
    case 'kill-follower': {
      const d = await cluster.describe(w.topic)
      const p = d.partitions.find((x) => x.partition === partition)!
      const follower = rng.pick(p.replicas.filter((r) => r !== p.leader))
      await w.load.waitForMoreAcks(100, { description: 'writes before killing a follower' })
      await cluster.kill(follower)
      await w.load.waitForMoreAcks(ACKS_AFTER_FAULT, { description: `writes without follower ${follower}` })
      await cluster.start(follower)
      result = { what: `kill -9 follower ${follower} of p${partition}, start it`, problems: [] }
      break
    }
  }
  const overlap = rng.int(0, 3) === 0
  if (!overlap) await cluster.waitForHealthy(w.topic, 60_000)
  return overlap ? { ...result, what: `${result.what} (next fault overlaps recovery)` } : result
}
