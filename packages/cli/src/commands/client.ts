/**
 * The CLI's use of @sluice/client: one connection per command (closed when it ends), and
 * mapping of the SDK's admin types to the views the CLI prints. Commands fail fast with a
 * typed error for a topic that does not exist, rather than letting the producer or consumer
 * retry metadata lookups until their deadline.
 */
import { connect, SluiceError, type SluiceClient } from '@sluice/client'
import type { CommandContext, TopicsCreateArgs } from '../command-types.js'
import { toJson } from '../output.js'
import type { ClusterView, TopicView } from './views.js'

/** Prints a command's result: `json` with --json, else the human rendering. */
export function print(ctx: CommandContext, json: unknown, human: () => string): void {
  ctx.io.stdout.write(ctx.json ? `${toJson(json, { pretty: true })}\n` : human())
}

/** Connects, runs `fn`, always closes. A CLI user would rather see an error soon than wait long. */
export async function withClient<T>(ctx: CommandContext, fn: (client: SluiceClient) => Promise<T>): Promise<T> {
  const client = await connect({
    bootstrap: ctx.bootstrap,
    clientId: 'sluice-cli',
    requestTimeoutMs: 30_000,
    retry: { retries: 5, initialBackoffMs: 100, maxBackoffMs: 1000 },
  })
  try {
    return await fn(client)
  } finally {
    await client.close().catch(() => {})
  }
}

/**
 * The admin API reports batch failures as "<op> failed for 1 of 1 topic(s): t: CODE (why)"; for
 * the CLI's one-topic calls the item's own message is the useful part.
 */
export async function oneItem<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (err) {
    const errors = (err as SluiceError | undefined)?.details?.errors
    if (err instanceof SluiceError && Array.isArray(errors) && errors.length === 1) {
      const item = errors[0] as { message?: unknown }
      if (typeof item.message === 'string' && item.message !== '') {
        throw new SluiceError(err.code, item.message, err.details, { cause: err })
      }
    }
    throw err
  }
}

export async function describeTopics(client: SluiceClient, names: string[] | undefined): Promise<TopicView[]> {
  const topics = await oneItem(
    async () => await client.admin().describeTopics(names, { includeInternal: names !== undefined }),
  )
  return topics.map((t) => ({
    name: t.name,
    internal: t.isInternal,
    partitions: t.partitions.map((p) => ({
      topic: t.name,
      partition: p.partition,
      leader: p.leader,
      leaderEpoch: p.leaderEpoch,
      replicas: p.replicas,
      isr: p.isr,
    })),
    configs: Object.fromEntries(t.configs.filter((c) => c.source !== 'default').map((c) => [c.name, c.value])),
  }))
}

/** Throws UNKNOWN_TOPIC_OR_PARTITION unless the topic (and the partition, when given) exists. */
export async function assertTopicExists(client: SluiceClient, topic: string, partition?: number): Promise<void> {
  const [t] = await describeTopics(client, [topic])
  if (t === undefined) throw new SluiceError('UNKNOWN_TOPIC_OR_PARTITION', `topic ${topic} does not exist`, { topic })
  if (partition !== undefined && partition >= t.partitions.length) {
    throw new SluiceError(
      'UNKNOWN_TOPIC_OR_PARTITION',
      `topic ${topic} has ${t.partitions.length} partition(s); there is no partition ${partition}`,
      { topic, partition },
    )
  }
}

export async function createTopic(
  client: SluiceClient,
  name: string,
  args: TopicsCreateArgs,
): Promise<{ name: string; topicId: string; partitions?: number; replicationFactor?: number }> {
  const [created] = await oneItem(
    async () =>
      await client.admin().createTopics([
        {
          name,
          numPartitions: args.partitions,
          replicationFactor: args.replicationFactor,
          configs: args.config,
        },
      ]),
  )
  return {
    name,
    topicId: created?.topicId ?? '',
    partitions: created !== undefined && created.numPartitions > 0 ? created.numPartitions : args.partitions,
    replicationFactor:
      created !== undefined && created.replicationFactor > 0 ? created.replicationFactor : args.replicationFactor,
  }
}

export async function deleteTopic(client: SluiceClient, name: string): Promise<void> {
  await oneItem(async () => await client.admin().deleteTopics([name]))
}

export async function createPartitions(client: SluiceClient, name: string, count: number): Promise<void> {
  await oneItem(async () => await client.admin().createPartitions([{ name, count }]))
}

export async function describeCluster(client: SluiceClient): Promise<ClusterView> {
  const c = await client.admin().describeCluster()
  return { clusterId: c.clusterId, controllerId: c.controllerId, brokers: c.brokers }
}
