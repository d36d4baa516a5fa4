/**
 * Streams applications: GET /api/streams lists the groups that are streams applications (a
 * member runs the streams assignor; or, while none runs, an Empty consumer group whose id
 * prefixes a streams internal topic, `<app>-...-changelog` / `-repartition`), paginated, with
 * state and total lag; GET /api/streams/:app is what `sluice streams describe` shows (one
 * implementation, streams/streams-view.ts). Finding the applications needs every group's
 * protocol, so the list describes all groups in one call; lag is computed for the page only.
 */
import type { GroupDescription, SluiceClient } from '@sluice/client'
import { ConsoleError } from '../errors.js'
import { groupSummaries, loadGroupLag } from '../group-lag.js'
import { matchesSearch, pageRequest, slicePage } from '../http/pagination.js'
import { ok, type Route } from '../http/route.js'
import { logEnds } from '../log-offsets.js'
import {
  isStreamsGroup,
  runsStreamsAssignor,
  streamsDescribeView,
  streamsSourceTopics,
} from '../streams/streams-view.js'

const INTERNAL_SUFFIXES = ['-changelog', '-repartition']

/** Application ids of stopped streams applications, from their internal topics' names. */
function stoppedAppIds(groupIds: readonly string[], topics: readonly string[]): Set<string> {
  const internal = topics.filter((t) => INTERNAL_SUFFIXES.some((s) => t.endsWith(s)))
  return new Set(groupIds.filter((id) => internal.some((t) => t.startsWith(`${id}-`))))
}

/** The streams applications' descriptions, sorted by id. */
async function streamsGroups(client: SluiceClient, search: string | null): Promise<GroupDescription[]> {
  const admin = client.admin()
  const [listed, topics] = await Promise.all([admin.listGroups(), admin.listTopics()])
  const candidates = listed
    .filter((g) => (g.protocolType === 'consumer' || g.protocolType === '') && matchesSearch(g.groupId, search))
    .map((g) => g.groupId)
  if (candidates.length === 0) return []
  const described = await admin.describeGroups(candidates)
  const empty = described.filter((d) => d.members.length === 0 && d.protocol === '').map((d) => d.groupId)
  const stopped = stoppedAppIds(empty, topics)
  return described
    .filter((d) => runsStreamsAssignor(d) || stopped.has(d.groupId))
    .sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0))
}

export const streamsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/streams',
    mutates: false,
    handle: async ({ client, query }) => {
      const req = pageRequest(query)
      const { slice, total } = slicePage(await streamsGroups(client, query.get('search')), req)
      // Described already: only the page's committed offsets and log ends are read now.
      const rows = await groupSummaries(
        client,
        slice.map((d) => d.groupId),
        slice,
      )
      const items = rows.map((g) => ({
        applicationId: g.groupId,
        state: g.state,
        instances: g.members,
        topics: g.topics,
        totalLag: g.totalLag,
      }))
      return ok({ items, total, ...req })
    },
  },
  {
    method: 'GET',
    path: '/api/streams/:app',
    mutates: false,
    handle: async ({ client, params }) => {
      const g = await loadGroupLag(client, params.app!)
      if (!isStreamsGroup(g.description))
        throw new ConsoleError(
          'NOT_FOUND',
          `group ${params.app} is not a streams application (protocol ${g.description.protocolType}/${g.description.protocol || '-'})`,
        )
      // Source topics of tasks nobody runs right now are in no assignment: their ends are read too.
      const known = new Set(g.rows.map((r) => r.topic))
      const extra = await logEnds(
        client,
        streamsSourceTopics(g.description).filter((t) => !known.has(t)),
      )
      return ok(streamsDescribeView({ ...g, logEnds: new Map([...g.logEnds, ...extra]) }))
    },
  },
]
