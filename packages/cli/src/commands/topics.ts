/**
 * `sluice topics ...` and `sluice cluster describe`: thin wrappers over the admin API that print
 * tables (or JSON with --json). Mutations print one confirmation line; failures come back as
 * SluiceErrors and are printed by runCli as `error: <CODE>: <message>`.
 */
import { toJson } from '../output.js'
import type { CommandContext, TopicsCreateArgs } from '../program.js'
import { renderCluster, renderPartitions, renderTopicList } from './views.js'
import * as admin from './client.js'

function print (ctx: CommandContext, json: unknown, human: () => string): void {
  ctx.io.stdout.write(ctx.json ? toJson(json, { pretty: true }) + '\n' : human())
}

export async function topicsCreate (ctx: CommandContext, name: string, args: TopicsCreateArgs): Promise<number> {
  return await admin.withClient(ctx, async (client) => {
    const created = await admin.createTopic(client, name, args)
    print(ctx, created, () => `created topic ${name}` +
      (created.partitions === undefined ? '' : ` with ${created.partitions} partition(s)`) +
      (created.replicationFactor === undefined ? '' : `, replication factor ${created.replicationFactor}`) + '\n')
    return 0
  })
}

export async function topicsList (ctx: CommandContext): Promise<number> {
  return await admin.withClient(ctx, async (client) => {
    const topics = await admin.describeTopics(client, undefined)
    print(ctx, topics.map((t) => ({ name: t.name, partitions: t.partitions.length, internal: t.internal })),
      () => renderTopicList(topics))
    return 0
  })
}

export async function topicsDescribe (ctx: CommandContext, name: string | undefined): Promise<number> {
  return await admin.withClient(ctx, async (client) => {
    const topics = await admin.describeTopics(client, name === undefined ? undefined : [name])
    print(ctx, name === undefined ? topics : topics[0], () => renderPartitions(topics))
    return 0
  })
}

export async function topicsDelete (ctx: CommandContext, name: string): Promise<number> {
  return await admin.withClient(ctx, async (client) => {
    await admin.deleteTopic(client, name)
    print(ctx, { deleted: name }, () => `deleted topic ${name}\n`)
    return 0
  })
}

export async function topicsAddPartitions (ctx: CommandContext, name: string, count: number): Promise<number> {
  return await admin.withClient(ctx, async (client) => {
    await admin.createPartitions(client, name, count)
    print(ctx, { topic: name, partitions: count }, () => `topic ${name} now has ${count} partition(s)\n`)
    return 0
  })
}

export async function clusterDescribe (ctx: CommandContext): Promise<number> {
  return await admin.withClient(ctx, async (client) => {
    const cluster = await admin.describeCluster(client)
    print(ctx, cluster, () => renderCluster(cluster))
    return 0
  })
}
