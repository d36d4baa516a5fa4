/**
 * Makes the cluster ready for a plan before the app joins its group: reads the partition counts
 * of every topic the plan reads or writes, works out the counts the internal topics need
 * (partition-counts.ts), checks co-partitioning and the counts of the internal topics that
 * already exist, and only when all of that holds creates the missing internal topics. A wrong
 * count is a typed error and nothing is created (an existing topic is never altered: changing a
 * changelog's or repartition topic's partition count would move keys between tasks).
 */
import { isSluiceError, type Admin, type Logger, type TopicDescription } from '@sluice/client'
import { StreamsError } from '../errors.js'
import { checkCopartitioning } from './copartitioning.js'
import { requiredPartitionCounts } from './partition-counts.js'
import type { TopologyPlan } from './task-contract.js'

export interface PreparedTopics {
  /** Partition count of every topic the plan reads or writes that exists now (internal ones included). */
  readonly counts: Map<string, number>
  /** Task count (input partition count) per sub-topology. */
  readonly tasksPerSubtopology: Map<number, number>
  /** Internal topics this call created. */
  readonly created: string[]
}

export async function prepareInternalTopics(
  admin: Admin,
  plan: TopologyPlan,
  options: { replicationFactor: number | undefined; logger: Logger; leaderTimeoutMs?: number },
  attempt = 0,
): Promise<PreparedTopics> {
  const wanted = new Set<string>([
    ...plan.subtopologies.flatMap((s) => [...s.sourceTopics, ...s.sinkTopics]),
    ...plan.internalTopics.map((t) => t.name),
  ])
  const existing = await describeExisting(admin, [...wanted])
  const counts = new Map([...existing].map(([name, d]) => [name, d.partitions.length]))
  const required = requiredPartitionCounts(plan, counts)
  checkCopartitioning(plan, required.topics)

  const mismatched = plan.internalTopics
    .filter((t) => counts.has(t.name) && counts.get(t.name) !== required.topics.get(t.name))
    .map((t) => ({ topic: t.name, expected: required.topics.get(t.name)!, actual: counts.get(t.name)! }))
  if (mismatched.length > 0) {
    const list = mismatched.map((m) => `${m.topic} has ${m.actual} partitions, needs ${m.expected}`).join('; ')
    throw new StreamsError(
      'TOPOLOGY',
      `internal topics of ${plan.applicationId} exist with the wrong partition count (nothing was created): ${list}`,
      { details: { problem: 'INTERNAL_TOPIC_PARTITIONS', topics: mismatched } },
    )
  }
  for (const t of plan.internalTopics) {
    const d = existing.get(t.name)
    const policy = d?.configs.find((c) => c.name === 'cleanup.policy')?.value
    const wantedPolicy = t.configs['cleanup.policy']
    if (d !== undefined && wantedPolicy !== undefined && policy !== undefined && policy !== wantedPolicy) {
      options.logger.warn(
        { topic: t.name, cleanupPolicy: policy, expected: wantedPolicy },
        'an internal topic exists with another cleanup.policy; it is used as it is',
      )
    }
  }

  const missing = plan.internalTopics.filter((t) => !counts.has(t.name))
  const created: string[] = []
  if (missing.length > 0) {
    try {
      await admin.createTopics(
        missing.map((t) => ({
          name: t.name,
          numPartitions: required.topics.get(t.name)!,
          ...(options.replicationFactor !== undefined ? { replicationFactor: options.replicationFactor } : {}),
          configs: { ...t.configs },
        })),
      )
      created.push(...missing.map((t) => t.name))
    } catch (err) {
      // Another instance of the application may have created some of them at the same time:
      // that is fine as long as the counts are right, which the second pass checks.
      if (!isSluiceError(err) || err.code !== 'TOPIC_ALREADY_EXISTS' || attempt >= 5) throw err
      const succeeded = (err.details as { succeeded?: string[] } | undefined)?.succeeded ?? []
      created.push(...succeeded)
      const again = await prepareInternalTopics(admin, plan, options, attempt + 1)
      return { ...again, created: [...created, ...again.created] }
    }
    for (const t of missing) counts.set(t.name, required.topics.get(t.name)!)
    options.logger.info({ topics: created, applicationId: plan.applicationId }, 'internal topics created')
    await waitForLeaders(admin, created, options.leaderTimeoutMs ?? 30_000)
  }
  return { counts, tasksPerSubtopology: required.subtopologies, created }
}

async function describeExisting(admin: Admin, names: string[]): Promise<Map<string, TopicDescription>> {
  const all = new Set(await admin.listTopics())
  const present = names.filter((n) => all.has(n))
  const described = present.length === 0 ? [] : await admin.describeTopics(present)
  return new Map(described.map((d) => [d.name, d]))
}

/** A topic just created has no leaders for a moment; the app's first assignment, produce and fetch should not race that. */
async function waitForLeaders(admin: Admin, topics: string[], timeoutMs: number): Promise<void> {
  if (topics.length === 0) return
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const described = await admin.describeTopics(topics).catch(() => [])
    const led = described.length === topics.length && described.every((d) => d.partitions.every((p) => p.leader >= 0))
    // The brokers learn of a topic a moment after the metadata service: until they answer for
    // it, the group's leader would assign without it and rebalance again once it appears.
    if (
      led &&
      (await admin
        .listOffsets(
          topics.map((topic) => ({ topic })),
          'latest',
        )
        .then(
          () => true,
          () => false,
        ))
    ) {
      return
    }
    if (Date.now() > deadline) {
      throw new StreamsError('RUNTIME', `internal topics have no leaders after ${timeoutMs} ms: ${topics.join(', ')}`, {
        details: { topics },
      })
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
