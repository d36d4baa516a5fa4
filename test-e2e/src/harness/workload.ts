/**
 * One fault run from start to verdict: create the topic (RF 3, min.insync.replicas 2, unless the
 * scenario asks for another replication factor or more topic configs), check the
 * proxies are really in the path, start the acks=all load; then, after the faults, stop the
 * load, heal everything (start dead brokers, continue stopped ones), wait for a full ISR, read
 * every partition back and check, and prove the replicas converged byte for byte (same records,
 * same offsets, same leader epochs), which is how a zombie's truncated tail shows.
 */
import type { Producer } from '@sluice/client'
import { waitFor } from '@sluice/testkit'
import { analyze, formatReport, LoadRecorder, type CheckReport } from './checker.js'
import type { FaultCluster } from './fault-cluster.js'
import { startLoad, type LoadOptions, type LoadSummary, type RunningLoad } from './load.js'
import { readReplicaFiles, readTopic, replicaDifference } from './read-back.js'

export interface WorkloadOptions {
  readonly topic: string
  /** Default 4. */
  readonly partitions?: number
  /** Default 3. */
  readonly replicationFactor?: number
  /** Topic configs besides min.insync.replicas (default 2, or 1 with a replication factor below 3). */
  readonly configs?: Readonly<Record<string, string>>
  readonly load?: Partial<Pick<LoadOptions, 'keys' | 'maxRecords' | 'maxDurationMs' | 'maxOutstanding' | 'ratePerSec'>>
}

export interface Workload {
  readonly topic: string
  readonly partitions: number
  readonly recorder: LoadRecorder
  readonly producer: Producer
  readonly load: RunningLoad
}

export interface Verdict {
  readonly report: CheckReport
  readonly load: LoadSummary
  /** Replicas whose files differ from the leader's copy: must be empty. */
  readonly divergence: string[]
  /** The summary line(s) also printed to the timeline. */
  readonly text: string
}

export async function startWorkload(cluster: FaultCluster, options: WorkloadOptions): Promise<Workload> {
  const partitions = options.partitions ?? 4
  const replicationFactor = options.replicationFactor ?? 3
  await cluster.admin.createTopics([
    {
      name: options.topic,
      numPartitions: partitions,
      replicationFactor,
      configs: { 'min.insync.replicas': replicationFactor >= 3 ? '2' : '1', ...options.configs },
    },
  ])
  // A new topic's ISR is full from the start: wait until every follower has actually dialled
  // its leader, and through the proxy, or the faults would not cut what they claim to cut.
  let problems: string[] = []
  await waitFor(
    async () => {
      problems = cluster.wiringProblems(await cluster.waitForHealthy(options.topic, 30_000))
      return problems.length === 0
    },
    { timeoutMs: 20_000, description: 'followers to connect to their leaders' },
  ).catch(() => {
    throw new Error(
      `the fault proxies are not in the replication path (is the broker's replica connect override supported?):\n${problems.join('\n')}`,
    )
  })
  cluster.log(`topic ${options.topic}: ${await cluster.summary(options.topic)}`)
  const recorder = new LoadRecorder()
  const producer = cluster.client.producer({
    acks: 'all',
    idempotent: true,
    lingerMs: 5,
    maxInFlight: 5,
    deliveryTimeoutMs: 30_000,
    requestTimeoutMs: 5_000,
  })
  const load = startLoad({ producer, topic: options.topic, recorder, ...options.load })
  return { topic: options.topic, partitions, recorder, producer, load }
}

export async function finishWorkload(cluster: FaultCluster, w: Workload, label: string): Promise<Verdict> {
  const loadSummary = await w.load.stop()
  await w.producer.close().catch(() => {})
  cluster.log(
    `load stopped: sent ${loadSummary.sent}, acked ${loadSummary.acked}, failed ${loadSummary.failed} in ${loadSummary.durationMs} ms` +
      (w.recorder.failureCodes.size > 0
        ? ` (failures: ${[...w.recorder.failureCodes].map(([c, n]) => `${c} x${n}`).join(', ')})`
        : ''),
  )
  cluster.heal()
  for (const id of cluster.brokerIds) if (cluster.state(id) === 'dead') await cluster.start(id)
  const healthy = await cluster.waitForHealthy(w.topic, 60_000)
  cluster.log(`healed: ${await cluster.summary(w.topic)}`)
  const read = await readTopic(cluster.client, w.topic, { timeoutMs: 60_000 })
  const report = analyze(w.recorder, read)
  const divergence = await replicaDivergence(
    cluster,
    w.topic,
    healthy.partitions.map((p) => ({ partition: p.partition, leader: p.leader })),
  )
  const text = [formatReport(label, report), ...divergence.map((d) => `  DIVERGED ${d}`)].join('\n')
  cluster.log(text)
  return { report, load: loadSummary, divergence, text }
}

/** Waits (bounded) for every replica's files to equal its leader's; returns what still differs. */
async function replicaDivergence(
  cluster: FaultCluster,
  topic: string,
  partitions: Array<{ partition: number; leader: number }>,
): Promise<string[]> {
  let problems: string[] = []
  const check = async (): Promise<boolean> => {
    problems = []
    for (const { partition, leader } of partitions) {
      const reference = await readReplicaFiles(cluster.brokerDataDir(leader), topic, partition)
      for (const id of cluster.brokerIds) {
        if (id === leader) continue
        const diff = replicaDifference(reference, await readReplicaFiles(cluster.brokerDataDir(id), topic, partition))
        if (diff !== undefined) problems.push(`${topic}-${partition} broker ${id} vs leader ${leader}: ${diff}`)
      }
    }
    return problems.length === 0
  }
  await waitFor(check, { timeoutMs: 30_000, description: 'replicas to converge' }).catch(() => {})
  return problems
}
