/**
 * `sluice topics ...` and `sluice cluster describe`: thin wrappers over the admin API that print
 * tables (or JSON with --json). Mutations print one confirmation line; failures come back as
 * SluiceErrors and are printed by runCli as `error: <CODE>: <message>`.
 *   topics describe <t> --configs   every effective topic config with its source (default | topic)
 *   topics alter <t> --config k=v --delete-config k   validated by the metadata service, applied
 *                                   by the brokers at run time
 *   topics delete-records <t> --partition N --before-offset N|hw   moves the log start offset
 */
import { SluiceError } from '@sluice/client'
import { renderTable } from '../table.js'
import type {
  CommandContext,
  TopicsAlterArgs,
  TopicsCreateArgs,
  TopicsDeleteRecordsArgs,
  TopicsDescribeArgs,
  TopicsElectLeadersArgs,
} from '../command-types.js'
import { renderCluster, renderPartitions, renderTopicList, underReplicated } from './views.js'
import * as admin from './client.js'
import { oneItem, print } from './client.js'

export async function topicsCreate(ctx: CommandContext, name: string, args: TopicsCreateArgs): Promise<number> {
  return await admin.withClient(ctx, async (client) => {
    const created = await admin.createTopic(client, name, args)
    print(
      ctx,
      created,
      () =>
        `created topic ${name}` +
        (created.partitions === undefined ? '' : ` with ${created.partitions} partition(s)`) +
        (created.replicationFactor === undefined ? '' : `, replication factor ${created.replicationFactor}`) +
        '\n',
    )
    return 0
  })
}

export async function topicsList(ctx: CommandContext): Promise<number> {
  return await admin.withClient(ctx, async (client) => {
    const topics = await admin.describeTopics(client, undefined)
    print(
      ctx,
      topics.map((t) => ({ name: t.name, partitions: t.partitions.length, internal: t.internal })),
      () => renderTopicList(topics),
    )
    return 0
  })
}

export async function topicsDescribe(
  ctx: CommandContext,
  name: string | undefined,
  args: TopicsDescribeArgs = {},
): Promise<number> {
  if (args.configs === true) return await topicsDescribeConfigs(ctx, name)
  return await admin.withClient(ctx, async (client) => {
    const all = await admin.describeTopics(client, name === undefined ? undefined : [name])
    if (args.underReplicated === true) {
      const topics = underReplicated(all)
      print(ctx, topics, () => (topics.length === 0 ? 'no under-replicated partitions\n' : renderPartitions(topics)))
      return 0
    }
    print(ctx, name === undefined ? all : all[0], () => renderPartitions(all))
    return 0
  })
}

/**
 * `topics elect-leaders [name] [--partition N] [--unclean]`: moves leadership to each partition's
 * preferred replica (the first in its replica list) where it is alive and in sync, or with
 * --unclean elects any live replica for partitions without a leader. ELECTION_NOT_NEEDED is a
 * normal outcome, reported per partition; any other per-partition failure makes the exit code 1.
 */
export async function topicsElectLeaders(
  ctx: CommandContext,
  name: string | undefined,
  args: TopicsElectLeadersArgs,
): Promise<number> {
  return await admin.withClient(ctx, async (client) => {
    let partitions: Array<{ topic: string; partition: number }> | undefined
    if (name !== undefined) {
      const [topic] = await admin.describeTopics(client, [name])
      partitions = (topic?.partitions ?? [])
        .filter((p) => args.partition === undefined || p.partition === args.partition)
        .map((p) => ({ topic: name, partition: p.partition }))
      if (partitions.length === 0)
        throw new SluiceError('UNKNOWN_TOPIC_OR_PARTITION', `topic ${name} has no partition ${String(args.partition)}`)
    }
    const results = await client.admin().electLeaders({
      type: args.unclean === true ? 'unclean' : 'preferred',
      ...(partitions !== undefined ? { partitions } : {}),
    })
    const rows = results
      .map((r) => ({
        topic: r.topic,
        partition: r.partition,
        leader: r.leader,
        result:
          r.error === undefined
            ? 'elected'
            : r.error.code === 'ELECTION_NOT_NEEDED'
              ? 'already preferred'
              : `${r.error.code}: ${r.error.message}`,
      }))
      .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition)
    print(ctx, rows, () =>
      renderTable<(typeof rows)[number]>(
        [
          { header: 'TOPIC', value: (r) => r.topic },
          { header: 'PARTITION', value: (r) => r.partition },
          { header: 'LEADER', value: (r) => (r.leader < 0 ? 'none' : r.leader), align: 'right' },
          { header: 'RESULT', value: (r) => r.result, align: 'left' },
        ],
        rows,
      ),
    )
    return results.some((r) => r.error !== undefined && r.error.code !== 'ELECTION_NOT_NEEDED') ? 1 : 0
  })
}

export async function topicsDelete(ctx: CommandContext, name: string): Promise<number> {
  return await admin.withClient(ctx, async (client) => {
    await admin.deleteTopic(client, name)
    print(ctx, { deleted: name }, () => `deleted topic ${name}\n`)
    return 0
  })
}

export async function topicsAddPartitions(ctx: CommandContext, name: string, count: number): Promise<number> {
  return await admin.withClient(ctx, async (client) => {
    await admin.createPartitions(client, name, count)
    print(ctx, { topic: name, partitions: count }, () => `topic ${name} now has ${count} partition(s)\n`)
    return 0
  })
}

export async function clusterDescribe(ctx: CommandContext): Promise<number> {
  return await admin.withClient(ctx, async (client) => {
    const cluster = await admin.describeCluster(client)
    print(ctx, cluster, () => renderCluster(cluster))
    return 0
  })
}

interface ConfigRow {
  topic: string
  name: string
  value: string
  source: string
}

async function topicsDescribeConfigs(ctx: CommandContext, name: string | undefined): Promise<number> {
  return await admin.withClient(ctx, async (client) => {
    const topics = await client
      .admin()
      .describeTopics(name === undefined ? undefined : [name], { includeInternal: name !== undefined })
    const rows: ConfigRow[] = topics.flatMap((t) =>
      [...t.configs]
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((c) => ({ topic: t.name, name: c.name, value: c.value, source: c.source })),
    )
    print(ctx, name === undefined ? rows : rows.map(({ name, value, source }) => ({ name, value, source })), () =>
      renderTable<ConfigRow>(
        [
          ...(name === undefined ? [{ header: 'TOPIC', value: (r: ConfigRow) => r.topic }] : []),
          { header: 'CONFIG', value: (r) => r.name },
          { header: 'VALUE', value: (r) => r.value, align: 'left' },
          { header: 'SOURCE', value: (r) => r.source },
        ],
        rows,
      ),
    )
    return 0
  })
}

export async function topicsAlter(ctx: CommandContext, name: string, args: TopicsAlterArgs): Promise<number> {
  const configs: Record<string, string | null> = { ...args.config }
  for (const key of args.deleteConfig) {
    if (key in args.config) throw new SluiceError('INVALID_CONFIG', `${key} is both set and deleted`)
    configs[key] = null
  }
  if (Object.keys(configs).length === 0)
    throw new SluiceError('INVALID_CONFIG', 'nothing to change: give --config key=value or --delete-config key')
  return await admin.withClient(ctx, async (client) => {
    // One topic: its own message is the useful part ("retention.ms: -5 is outside [-1, ...]").
    await oneItem(async () => {
      await client.admin().alterConfigs([{ topic: name, configs }])
    })
    const changes = Object.entries(configs).map(([k, v]) => (v === null ? `${k} (deleted)` : `${k}=${v}`))
    print(
      ctx,
      { topic: name, set: args.config, deleted: args.deleteConfig },
      () => `altered topic ${name}: ${changes.join(', ')}\n`,
    )
    return 0
  })
}

export async function topicsDeleteRecords(
  ctx: CommandContext,
  name: string,
  args: TopicsDeleteRecordsArgs,
): Promise<number> {
  return await admin.withClient(ctx, async (client) => {
    await admin.assertTopicExists(client, name, args.partition)
    const [res] = await client
      .admin()
      .deleteRecords([{ topic: name, partition: args.partition, beforeOffset: args.beforeOffset }])
    const low = res?.lowWatermark ?? -1n
    print(
      ctx,
      { topic: name, partition: args.partition, lowWatermark: low.toString() },
      () => `deleted records of ${name}/${args.partition} below offset ${low} (new log start offset)\n`,
    )
    return 0
  })
}
