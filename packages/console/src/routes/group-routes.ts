/**
 * Consumer groups: the paginated list with total lag per group (computed for the page's groups
 * only: one describeGroups, one fetchOffsets per group and one listOffsets for all their
 * topics), a group's members, assignment and lag per partition, and reset-offsets with the
 * plan `sluice groups reset-offsets` prints. A reset is a dry run unless `execute: true`, so
 * only an executed reset counts as a change (read-only mode still shows plans).
 */
import type { ResetSpec, SluiceClient } from '@sluice/client'
import { ConsoleError, badRequest } from '../errors.js'
import { lagTopics, partitionLags, totalLag } from '../group-lag.js'
import { matchesSearch, pageRequest, slicePage } from '../http/pagination.js'
import { bigintField, objectBody, stringField } from '../http/query.js'
import { ok, type Route, type RouteRequest } from '../http/route.js'
import { logEnds } from '../log-offsets.js'

async function describeGroup(client: SluiceClient, groupId: string) {
  const admin = client.admin()
  const [d] = await admin.describeGroups([groupId])
  if (d === undefined || d.state === 'Dead') throw new ConsoleError('NOT_FOUND', `group ${groupId} does not exist`)
  return d
}

/** `to` of a reset: "earliest" | "latest" | {offset} | {timestamp} | {shiftBy}, exactly one. */
export function resetSpecOf(to: unknown): ResetSpec {
  if (to === 'earliest' || to === 'latest') return to
  if (to !== null && typeof to === 'object' && !Array.isArray(to)) {
    const o = to as Record<string, unknown>
    const keys = Object.keys(o)
    if (keys.length === 1) {
      if (keys[0] === 'offset') return { offset: bigintField(o, 'offset') }
      if (keys[0] === 'timestamp') return { timestamp: bigintField(o, 'timestamp') }
      if (keys[0] === 'shiftBy') return { shiftBy: bigintField(o, 'shiftBy', true) }
    }
  }
  throw badRequest('to must be "earliest", "latest", {"offset": n}, {"timestamp": ms} or {"shiftBy": n}')
}

const executes = (r: RouteRequest): boolean =>
  r.body !== null && typeof r.body === 'object' && (r.body as Record<string, unknown>).execute === true

export const groupRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/groups',
    mutates: false,
    handle: async ({ client, query }) => {
      const admin = client.admin()
      const search = query.get('search')
      const req = pageRequest(query)
      const all = (await admin.listGroups()).filter((g) => matchesSearch(g.groupId, search))
      const { slice, total } = slicePage(all, req)
      if (slice.length === 0) return ok({ items: [], total, ...req })
      const described = await admin.describeGroups(slice.map((g) => g.groupId))
      const committed = await Promise.all(slice.map(async (g) => await admin.fetchOffsets(g.groupId)))
      const ends = await logEnds(
        client,
        described.flatMap((d, i) => lagTopics(d, committed[i]!)),
      )
      const items = described.map((d, i) => {
        const rows = partitionLags(d, committed[i]!, ends)
        return {
          groupId: d.groupId,
          state: d.state,
          protocolType: d.protocolType,
          members: d.members.length,
          topics: [...new Set(rows.map((r) => r.topic))].sort(),
          totalLag: totalLag(rows),
        }
      })
      return ok({ items, total, ...req })
    },
  },
  {
    method: 'GET',
    path: '/api/groups/:id',
    mutates: false,
    handle: async ({ client, params }) => {
      const d = await describeGroup(client, params.id!)
      const committed = await client.admin().fetchOffsets(d.groupId)
      const rows = partitionLags(d, committed, await logEnds(client, lagTopics(d, committed)))
      return ok({
        groupId: d.groupId,
        state: d.state,
        protocolType: d.protocolType,
        protocol: d.protocol,
        generationId: d.generationId,
        leader: d.leader === '' ? null : d.leader,
        members: d.members.map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId ?? null,
          clientId: m.clientId,
          clientHost: m.clientHost,
          assignment: m.assignment.map((a) => ({ topic: a.topic, partition: a.partition })),
        })),
        offsets: rows,
        totalLag: totalLag(rows),
      })
    },
  },
  {
    method: 'POST',
    path: '/api/groups/:id/reset-offsets',
    mutates: executes,
    handle: async ({ client, params, body }) => {
      const o = objectBody(body)
      const topic = stringField(o, 'topic')
      const to = resetSpecOf(o.to)
      const partitions = o.partitions
      if (
        partitions !== undefined &&
        (!Array.isArray(partitions) || !partitions.every((p) => Number.isInteger(p) && (p as number) >= 0))
      )
        throw badRequest('partitions must be an array of partition numbers')
      if (o.execute !== undefined && typeof o.execute !== 'boolean') throw badRequest('execute must be a boolean')
      const execute = o.execute === true
      const plan = await client.admin().resetOffsets(params.id!, {
        topic,
        to,
        dryRun: !execute,
        ...(partitions !== undefined ? { partitions: partitions as number[] } : {}),
      })
      return ok({
        group: params.id,
        executed: execute,
        partitions: plan.map((p) => ({
          topic: p.topic,
          partition: p.partition,
          current: p.current >= 0n ? p.current : null,
          target: p.target,
        })),
      })
    },
  },
]
