/**
 * `sluice groups list | describe <group> | reset-offsets <group> | delete <group>`: consumer
 * groups through the admin API. `describe` joins the coordinator's view (state, members and
 * their assignments) with committed offsets and the partitions' log end offsets to show lag, as
 * kafka-consumer-groups --describe does. `reset-offsets` prints the plan and changes nothing
 * unless --execute is given; it works only on a group without members (NON_EMPTY_GROUP
 * otherwise). Rendering is pure (render*), so it is tested without a cluster.
 */
import { SluiceError, type GroupDescription, type ResetSpec, type SluiceClient } from '@sluice/client'
import { resetPlanView, type ResetPlanRow } from '@sluice/console/internal'
import { UsageError } from '../output.js'
import type { CommandContext, GroupsResetArgs } from '../command-types.js'
import { renderTable } from '../table.js'
import { oneItem, print, withClient } from './client.js'

export interface GroupListView {
  readonly groupId: string
  readonly state: string
  readonly protocolType: string
}

export interface GroupMemberView {
  readonly memberId: string
  readonly groupInstanceId: string | null
  readonly clientId: string
  readonly clientHost: string
  readonly assignment: ReadonlyArray<{ topic: string; partition: number }>
}

export interface GroupOffsetView {
  readonly topic: string
  readonly partition: number
  /** null when the group committed nothing for the partition. */
  readonly committed: bigint | null
  /** null when the partition's end could not be read (e.g. its topic was deleted). */
  readonly logEnd: bigint | null
  readonly lag: bigint | null
  readonly memberId: string | null
}

export interface GroupDescribeView {
  readonly groupId: string
  readonly state: string
  readonly protocolType: string
  readonly protocol: string
  readonly generationId: number
  readonly leader: string
  readonly members: readonly GroupMemberView[]
  readonly offsets: readonly GroupOffsetView[]
  readonly totalLag: bigint
}

/** The plan's rows: the console's (one definition, so the page and the CLI show the same plan). */
export type ResetPlanView = ResetPlanRow

// ---- rendering ----

export function renderGroupList(groups: readonly GroupListView[]): string {
  return renderTable<GroupListView>(
    [
      { header: 'GROUP', value: (g) => g.groupId },
      { header: 'STATE', value: (g) => g.state },
      { header: 'PROTOCOL TYPE', value: (g) => (g.protocolType === '' ? undefined : g.protocolType) },
    ],
    [...groups].sort((a, b) => a.groupId.localeCompare(b.groupId)),
  )
}

const tpList = (tps: GroupMemberView['assignment']): string =>
  tps.length === 0 ? '-' : tps.map((tp) => `${tp.topic}:${tp.partition}`).join(',')

export function renderGroupDescription(g: GroupDescribeView): string {
  const head = `${[
    `group       ${g.groupId}`,
    `state       ${g.state}`,
    `protocol    ${g.protocolType === '' ? '-' : g.protocolType}${g.protocol === '' ? '' : `/${g.protocol}`}`,
    `generation  ${g.generationId}`,
    `members     ${g.members.length}`,
    '',
  ].join('\n')}\n`
  const members =
    g.members.length === 0
      ? ''
      : `${renderTable<GroupMemberView>(
          [
            { header: 'MEMBER', value: (m) => m.memberId + (m.memberId === g.leader ? ' (leader)' : '') },
            { header: 'INSTANCE', value: (m) => m.groupInstanceId },
            { header: 'CLIENT ID', value: (m) => (m.clientId === '' ? undefined : m.clientId) },
            { header: 'HOST', value: (m) => (m.clientHost === '' ? undefined : m.clientHost) },
            { header: 'PARTITIONS', value: (m) => tpList(m.assignment) },
          ],
          g.members,
        )}\n`
  const offsets = renderTable<GroupOffsetView>(
    [
      { header: 'TOPIC', value: (o) => o.topic },
      { header: 'PARTITION', value: (o) => o.partition },
      { header: 'COMMITTED', value: (o) => o.committed, align: 'right' },
      { header: 'LOG END', value: (o) => o.logEnd, align: 'right' },
      { header: 'LAG', value: (o) => o.lag, align: 'right' },
      { header: 'MEMBER', value: (o) => o.memberId },
    ],
    g.offsets,
  )
  return `${head + members + offsets}\ntotal lag   ${g.totalLag}\n`
}

export function renderResetPlan(group: string, plan: readonly ResetPlanView[], executed: boolean): string {
  const table = renderTable<ResetPlanView>(
    [
      { header: 'TOPIC', value: (p) => p.topic },
      { header: 'PARTITION', value: (p) => p.partition },
      { header: 'CURRENT', value: (p) => p.current, align: 'right' },
      { header: 'NEW', value: (p) => p.target },
    ],
    plan,
  )
  return (
    table +
    (executed
      ? `reset ${plan.length} partition(s) of group ${group}\n`
      : `dry run: nothing changed; add --execute to commit these offsets for group ${group}\n`)
  )
}

/** Combines the coordinator's description with committed and log end offsets. */
export function describeView(
  d: GroupDescription,
  committed: ReadonlyArray<{ topic: string; partition: number; offset: bigint }>,
  logEnds: ReadonlyMap<string, bigint>,
): GroupDescribeView {
  const key = (topic: string, partition: number): string => `${topic}\u0000${partition}`
  const owner = new Map<string, string>()
  for (const m of d.members) for (const tp of m.assignment) owner.set(key(tp.topic, tp.partition), m.memberId)
  const rows = new Map<string, { topic: string; partition: number }>()
  for (const c of committed) rows.set(key(c.topic, c.partition), c)
  for (const m of d.members) for (const tp of m.assignment) rows.set(key(tp.topic, tp.partition), tp)
  const committedAt = new Map(committed.map((c) => [key(c.topic, c.partition), c.offset]))
  const offsets = [...rows.values()]
    .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
    .map((tp): GroupOffsetView => {
      const k = key(tp.topic, tp.partition)
      const c = committedAt.get(k) ?? null
      const end = logEnds.get(k) ?? null
      const lag = c !== null && end !== null ? (end > c ? end - c : 0n) : null
      return {
        topic: tp.topic,
        partition: tp.partition,
        committed: c,
        logEnd: end,
        lag,
        memberId: owner.get(k) ?? null,
      }
    })
  return {
    groupId: d.groupId,
    state: d.state,
    protocolType: d.protocolType,
    protocol: d.protocol,
    generationId: d.generationId,
    leader: d.leader,
    members: d.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId ?? null,
      clientId: m.clientId,
      clientHost: m.clientHost,
      assignment: m.assignment,
    })),
    offsets,
    totalLag: offsets.reduce((sum, o) => sum + (o.lag ?? 0n), 0n),
  }
}

/** Exactly one --to-* / --shift-by option, as a ResetSpec. */
export function resetSpec(args: GroupsResetArgs): ResetSpec {
  const given: ResetSpec[] = []
  if (args.toEarliest === true) given.push('earliest')
  if (args.toLatest === true) given.push('latest')
  if (args.toOffset !== undefined) given.push({ offset: args.toOffset })
  if (args.toTimestamp !== undefined) given.push({ timestamp: args.toTimestamp })
  if (args.shiftBy !== undefined) given.push({ shiftBy: args.shiftBy })
  if (given.length !== 1)
    throw new UsageError(
      'reset-offsets needs exactly one of --to-earliest, --to-latest, --to-offset, --to-timestamp, --shift-by',
    )
  return given[0]!
}

// ---- commands ----

export async function groupsList(ctx: CommandContext): Promise<number> {
  return await withClient(ctx, async (client) => {
    const groups = await client.admin().listGroups()
    print(ctx, groups, () => renderGroupList(groups))
    return 0
  })
}

/** What `groups describe` and `streams describe` read: the coordinator's view, committed offsets and log ends. */
export interface LoadedGroup {
  readonly description: GroupDescription
  readonly committed: ReadonlyArray<{ topic: string; partition: number; offset: bigint }>
  readonly logEnds: ReadonlyMap<string, bigint>
}

/** GROUP_ID_NOT_FOUND for a group the coordinator does not know. */
export async function loadGroup(client: SluiceClient, group: string): Promise<LoadedGroup> {
  const [d] = await oneItem(async () => await client.admin().describeGroups([group]))
  if (d === undefined) throw new SluiceError('GROUP_ID_NOT_FOUND', `group ${group} does not exist`, { groupId: group })
  const committed = await client.admin().fetchOffsets(group)
  const tps = [...committed, ...d.members.flatMap((m) => m.assignment)]
  return { description: d, committed, logEnds: await logEndOffsets(client, tps) }
}

export async function logEndOffsets(
  client: SluiceClient,
  tps: ReadonlyArray<{ topic: string; partition: number }>,
): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>()
  const topics = [...new Set(tps.map((tp) => tp.topic))]
  await Promise.all(
    topics.map(async (topic) => {
      // A committed offset can outlive its topic: such rows just have no log end.
      const ends = await client
        .admin()
        .listOffsets([{ topic }], 'latest')
        .catch(() => [])
      for (const e of ends) out.set(`${e.topic}\u0000${e.partition}`, e.offset)
    }),
  )
  return out
}

export async function groupsDescribe(ctx: CommandContext, group: string): Promise<number> {
  return await withClient(ctx, async (client) => {
    const g = await loadGroup(client, group)
    const view = describeView(g.description, g.committed, g.logEnds)
    print(ctx, view, () => renderGroupDescription(view))
    return 0
  })
}

export async function groupsResetOffsets(ctx: CommandContext, group: string, args: GroupsResetArgs): Promise<number> {
  const to = resetSpec(args)
  return await withClient(ctx, async (client) => {
    const plan = await client.admin().resetOffsets(group, { topic: args.topic, to, dryRun: !args.execute })
    const view = resetPlanView(plan)
    print(ctx, { group, executed: args.execute, partitions: view }, () => renderResetPlan(group, view, args.execute))
    return 0
  })
}

export async function groupsDelete(ctx: CommandContext, group: string): Promise<number> {
  return await withClient(ctx, async (client) => {
    await oneItem(async () => {
      await client.admin().deleteGroups([group])
    })
    print(ctx, { deleted: group }, () => `deleted group ${group}\n`)
    return 0
  })
}
