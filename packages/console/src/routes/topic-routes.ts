/**
 * Topics: the paginated list (name search on the server, and offsets read only for the page's
 * topics), a topic's partitions and configs, and the changes (create, alter configs, add
 * partitions, delete). Deleting needs `?confirm=<name>` repeating the topic's name, so a
 * mistyped or replayed request cannot delete a topic by accident.
 */
import type { SluiceClient, TopicDescription } from '@sluice/client'
import { ConsoleError, badRequest } from '../errors.js'
import { matchesSearch, pageRequest, slicePage } from '../http/pagination.js'
import { objectBody, optionalIntField, stringField, stringMapField } from '../http/query.js'
import { created, ok, type Route } from '../http/route.js'
import { logRanges, tpKey, type LogRange } from '../log-offsets.js'
import { topicSize, type LogSizes } from '../sampling/log-sizes.js'

export interface TopicRow {
  readonly name: string
  readonly internal: boolean
  readonly partitions: number
  readonly replicationFactor: number
  /** end - start summed over partitions (log-offsets.ts says when it is exact). */
  readonly records: bigint
  /** Bytes on the leaders, from the brokers' metrics (sampling/log-sizes.ts); null when unknown. */
  readonly sizeBytes: number | null
  readonly underReplicatedPartitions: number
  readonly offlinePartitions: number
}

function replicationFactorOf(t: TopicDescription): number {
  return t.partitions.reduce((m, p) => Math.max(m, p.replicas.length), 0)
}

function topicRow(
  t: TopicDescription,
  ranges: ReadonlyMap<string, LogRange>,
  sizes: ReadonlyMap<string, number>,
): TopicRow {
  let records = 0n
  for (const p of t.partitions) {
    const r = ranges.get(tpKey(t.name, p.partition))
    if (r !== undefined && r.end > r.start) records += r.end - r.start
  }
  return {
    name: t.name,
    internal: t.isInternal,
    partitions: t.partitions.length,
    replicationFactor: replicationFactorOf(t),
    records,
    sizeBytes: topicSize(t, sizes),
    underReplicatedPartitions: t.partitions.filter((p) => p.isr.length < p.replicas.length).length,
    offlinePartitions: t.partitions.filter((p) => p.leader < 0).length,
  }
}

async function describeOne(client: SluiceClient, name: string): Promise<TopicDescription> {
  const [t] = await client.admin().describeTopics([name], { includeInternal: true })
  if (t === undefined) throw new ConsoleError('NOT_FOUND', `topic ${name} does not exist`)
  return t
}

async function topicDetail(client: SluiceClient, logSizes: LogSizes, name: string): Promise<unknown> {
  const t = await describeOne(client, name)
  const [ranges, sizes] = await Promise.all([logRanges(client, [t]), logSizes.of([t])])
  return {
    ...topicRow(t, ranges, sizes),
    topicId: t.topicId,
    partitionDetails: t.partitions
      .slice()
      .sort((a, b) => a.partition - b.partition)
      .map((p) => {
        const r = ranges.get(tpKey(name, p.partition))
        return {
          partition: p.partition,
          leader: p.leader < 0 ? null : p.leader,
          leaderEpoch: p.leaderEpoch,
          replicas: p.replicas,
          isr: p.isr,
          logStart: r?.start ?? null,
          logEnd: r?.end ?? null,
          records: r === undefined ? null : r.end > r.start ? r.end - r.start : 0n,
          sizeBytes: sizes.get(tpKey(name, p.partition)) ?? null,
        }
      }),
    configs: t.configs
      .slice()
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((c) => ({ name: c.name, value: c.value, source: c.source })),
  }
}

export function topicRoutes(logSizes: LogSizes): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/topics',
      mutates: false,
      handle: async ({ client, query }) => {
        const admin = client.admin()
        const includeInternal = query.get('internal') === 'true'
        const search = query.get('search')
        const req = pageRequest(query)
        // One describe of every topic gives the names and the page's rows (listing names is the
        // same request to the metadata service, so a second describe of the page would only add one).
        const all = (await admin.describeTopics(undefined, { includeInternal }))
          .filter((t) => (includeInternal || !t.isInternal) && matchesSearch(t.name, search))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        const { slice, total } = slicePage(all, req)
        if (slice.length === 0) return ok({ items: [], total, ...req })
        const [ranges, sizes] = await Promise.all([logRanges(client, slice), logSizes.of(slice)])
        const items = slice.map((t) => topicRow(t, ranges, sizes))
        return ok({ items, total, ...req })
      },
    },
    {
      method: 'GET',
      path: '/api/topics/:name',
      mutates: false,
      handle: async ({ client, params }) => ok(await topicDetail(client, logSizes, params.name!)),
    },
    {
      method: 'POST',
      path: '/api/topics',
      mutates: true,
      handle: async ({ client, body }) => {
        const o = objectBody(body)
        const name = stringField(o, 'name')
        const numPartitions = optionalIntField(o, 'partitions', 1)
        const replicationFactor = optionalIntField(o, 'replicationFactor', 1)
        const configs = stringMapField(o, 'configs', false) as Record<string, string> | undefined
        const [t] = await client.admin().createTopics([
          {
            name,
            ...(numPartitions !== undefined ? { numPartitions } : {}),
            ...(replicationFactor !== undefined ? { replicationFactor } : {}),
            ...(configs !== undefined ? { configs } : {}),
          },
        ])
        return created(t)
      },
    },
    {
      method: 'PATCH',
      path: '/api/topics/:name/configs',
      mutates: true,
      handle: async ({ client, params, body }) => {
        const configs = stringMapField(objectBody(body), 'configs', true)
        if (configs === undefined || Object.keys(configs).length === 0)
          throw badRequest('configs must name at least one config (a string sets it, null deletes the override)')
        await describeOne(client, params.name!)
        await client.admin().alterConfigs([{ topic: params.name!, configs }])
        return ok(await topicDetail(client, logSizes, params.name!))
      },
    },
    {
      method: 'POST',
      path: '/api/topics/:name/partitions',
      mutates: true,
      handle: async ({ client, params, body }) => {
        const count = optionalIntField(objectBody(body), 'count', 1)
        if (count === undefined) throw badRequest('count (the new total number of partitions) is required')
        await client.admin().createPartitions([{ name: params.name!, count }])
        return ok(await topicDetail(client, logSizes, params.name!))
      },
    },
    {
      method: 'DELETE',
      path: '/api/topics/:name',
      mutates: true,
      handle: async ({ client, params, query }) => {
        const name = params.name!
        if (query.get('confirm') !== name)
          throw new ConsoleError('CONFIRMATION_REQUIRED', `to delete topic ${name}, repeat its name: ?confirm=${name}`)
        await describeOne(client, name)
        await client.admin().deleteTopics([name])
        return ok({ deleted: name })
      },
    },
  ]
}
