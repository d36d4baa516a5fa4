/**
 * Consumer groups: the paginated list with total lag per group (computed for the page's groups
 * only: one describeGroups, one fetchOffsets per group and one listOffsets for all their
 * topics), a group's members, assignment and lag per partition, and reset-offsets with the
 * plan `sluice groups reset-offsets` prints. A reset is a dry run unless `execute: true`, so
 * only an executed reset counts as a change (read-only mode still shows plans).
 */
import { badRequest } from '../errors.js'
import { groupSummaries, loadGroupLag } from '../group-lag.js'
import { matchesSearch, pageRequest, slicePage } from '../http/pagination.js'
import { objectBody, stringField } from '../http/query.js'
import { ok, type Route, type RouteRequest } from '../http/route.js'
import { resetPlanView, resetSpecOf } from '../reset-plan.js'
import type { LagHistory } from '../sampling/lag-history.js'

const executes = (r: RouteRequest): boolean =>
  r.body !== null && typeof r.body === 'object' && (r.body as Record<string, unknown>).execute === true

export function groupRoutes(lagHistory: LagHistory): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/groups',
      mutates: false,
      handle: async ({ client, query }) => {
        const admin = client.admin()
        const search = query.get('search')
        const req = pageRequest(query)
        const all = (await admin.listGroups())
          .filter((g) => matchesSearch(g.groupId, search))
          .sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0))
        const { slice, total } = slicePage(all, req)
        const items = await groupSummaries(
          client,
          slice.map((g) => g.groupId),
        )
        return ok({ items, total, ...req })
      },
    },
    {
      method: 'GET',
      path: '/api/groups/:id',
      mutates: false,
      handle: async ({ client, params }) => {
        const { description: d, rows, totalLag: total } = await loadGroupLag(client, params.id!)
        lagHistory.record(d.groupId, total)
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
          totalLag: total,
        })
      },
    },
    {
      method: 'GET',
      path: '/api/groups/:id/lag-history',
      mutates: false,
      handle: async ({ params }) => ok({ intervalMs: lagHistory.intervalMs, samples: lagHistory.history(params.id!) }),
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
          partitions: resetPlanView(plan),
        })
      },
    },
  ]
}
