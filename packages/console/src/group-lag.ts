/**
 * A group's lag, computed on the server: for every partition the group has a committed offset
 * for or a member owns, lag = log end - committed (0 when the committed offset is past the end,
 * null when either is unknown), as `sluice groups describe` and kafka-consumer-groups show it.
 */
import type { GroupDescription, GroupOffset, SluiceClient } from '@sluice/client'
import { ConsoleError } from './errors.js'
import { logEnds, tpKey } from './log-offsets.js'

export interface PartitionLag {
  readonly topic: string
  readonly partition: number
  readonly committed: bigint | null
  readonly logEnd: bigint | null
  readonly lag: bigint | null
  readonly memberId: string | null
}

export function partitionLags(
  d: GroupDescription,
  committed: readonly GroupOffset[],
  ends: ReadonlyMap<string, bigint>,
): PartitionLag[] {
  const owner = new Map<string, string>()
  const rows = new Map<string, { topic: string; partition: number }>()
  for (const c of committed) rows.set(tpKey(c.topic, c.partition), c)
  for (const m of d.members)
    for (const tp of m.assignment) {
      owner.set(tpKey(tp.topic, tp.partition), m.memberId)
      rows.set(tpKey(tp.topic, tp.partition), tp)
    }
  const committedAt = new Map(committed.map((c) => [tpKey(c.topic, c.partition), c.offset]))
  return [...rows.values()]
    .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
    .map((tp) => {
      const k = tpKey(tp.topic, tp.partition)
      const c = committedAt.get(k) ?? null
      const end = ends.get(k) ?? null
      return {
        topic: tp.topic,
        partition: tp.partition,
        committed: c,
        logEnd: end,
        lag: c !== null && end !== null ? (end > c ? end - c : 0n) : null,
        memberId: owner.get(k) ?? null,
      }
    })
}

export const totalLag = (rows: readonly PartitionLag[]): bigint => rows.reduce((s, r) => s + (r.lag ?? 0n), 0n)

/** The topics whose log ends a group's lag needs. */
export function lagTopics(d: GroupDescription, committed: readonly GroupOffset[]): string[] {
  return [...new Set([...committed.map((c) => c.topic), ...d.members.flatMap((m) => m.assignment.map((a) => a.topic))])]
}

export interface GroupLag {
  readonly description: GroupDescription
  readonly committed: GroupOffset[]
  readonly logEnds: Map<string, bigint>
  readonly rows: PartitionLag[]
  readonly totalLag: bigint
}

/** One group's description and lag; NOT_FOUND for a group the coordinator does not know. */
export async function loadGroupLag(client: SluiceClient, groupId: string): Promise<GroupLag> {
  const admin = client.admin()
  const [d] = await admin.describeGroups([groupId])
  if (d === undefined || d.state === 'Dead') throw new ConsoleError('NOT_FOUND', `group ${groupId} does not exist`)
  const committed = await admin.fetchOffsets(d.groupId)
  const ends = await logEnds(client, lagTopics(d, committed))
  const rows = partitionLags(d, committed, ends)
  return { description: d, committed, logEnds: ends, rows, totalLag: totalLag(rows) }
}

export interface GroupSummary {
  readonly groupId: string
  readonly state: string
  readonly protocolType: string
  readonly protocol: string
  readonly members: number
  readonly topics: string[]
  readonly totalLag: bigint
}

/**
 * The list rows of these groups (one page of them): one describeGroups, one fetchOffsets per
 * group and one listOffsets for all their topics, so a page costs the same however many groups
 * the cluster has. Already-described groups can be passed to save the describe.
 */
export async function groupSummaries(
  client: SluiceClient,
  groupIds: readonly string[],
  described?: readonly GroupDescription[],
): Promise<GroupSummary[]> {
  if (groupIds.length === 0) return []
  const admin = client.admin()
  const ds = described ?? (await admin.describeGroups([...groupIds]))
  const committed = await Promise.all(ds.map(async (d) => await admin.fetchOffsets(d.groupId)))
  const ends = await logEnds(
    client,
    ds.flatMap((d, i) => lagTopics(d, committed[i]!)),
  )
  return ds.map((d, i) => {
    const rows = partitionLags(d, committed[i]!, ends)
    return {
      groupId: d.groupId,
      state: d.state,
      protocolType: d.protocolType,
      protocol: d.protocol,
      members: d.members.length,
      topics: [...new Set(rows.map((r) => r.topic))].sort(),
      totalLag: totalLag(rows),
    }
  })
}
