/**
 * `sluice streams describe <application>`: a streams application's tasks, the instance running
 * each (active and standby) and every task's input partitions with their lag (committed offset
 * vs log end), as `groups describe` shows a consumer group. The application is the consumer
 * group of the same id; what only the streams assignor knows (task ids, standbys, instance ids,
 * and which sub-topology reads which topic) is in the userData of each member's subscription and
 * assignment, which the SDK's describeGroups hands over as bytes and the streams package's own
 * codec reads (docs/decisions.md, "sluice streams describe").
 *
 * While no instance runs (an Empty group) nothing says which task a partition belongs to: the
 * committed partitions are shown without tasks. Rendering is pure (render*), tested without a
 * cluster.
 */
import type { GroupDescription, SluiceClient } from '@sluice/client'
import {
  decodeAssignmentInfo,
  decodeSubscriptionInfo,
  type StreamsAssignmentInfo,
  type StreamsSubscriptionInfo,
} from '@sluice/streams/user-data'
import type { CommandContext } from '../command-types.js'
import { UsageError } from '../output.js'
import { renderTable } from '../table.js'
import { print, withClient } from './client.js'
import { loadGroup, logEndOffsets, type LoadedGroup } from './groups.js'

/** The streams assignor's protocol name (STREAMS_ASSIGNOR_NAME in @sluice/streams). */
const STREAMS_PROTOCOL = 'sluice-streams'

export interface StreamsInstanceView {
  /** null when the member's streams userData could not be read (another release, or not a streams member). */
  readonly instanceId: string | null
  readonly memberId: string
  readonly clientHost: string
  /** The interactive-query endpoint (applicationServer); null without one. */
  readonly endpoint: string | null
  readonly activeTasks: readonly string[]
  readonly standbyTasks: readonly string[]
}

export interface StreamsPartitionView {
  readonly topic: string
  readonly partition: number
  /** null when the application committed nothing for the partition. */
  readonly committed: bigint | null
  readonly logEnd: bigint | null
  readonly lag: bigint | null
}

export interface StreamsTaskView {
  readonly taskId: string
  /** The instance id running it as active; null while none does (a rebalance). */
  readonly active: string | null
  readonly standbys: readonly string[]
  readonly partitions: readonly StreamsPartitionView[]
  /** Summed over the partitions whose lag is known. */
  readonly lag: bigint
}

export interface StreamsDescribeView {
  readonly applicationId: string
  readonly state: string
  readonly generationId: number
  readonly instances: readonly StreamsInstanceView[]
  readonly tasks: readonly StreamsTaskView[]
  /** Committed partitions no task explains: all of them while no instance runs. */
  readonly otherPartitions: readonly StreamsPartitionView[]
  readonly totalLag: bigint
}

const key = (topic: string, partition: number): string => `${topic}\u0000${partition}`

function decoded<T>(decode: (b: Buffer | null) => T, bytes: Buffer | undefined): T | undefined {
  try {
    return decode(bytes ?? null)
  } catch {
    return undefined
  }
}

/** Refuses a group that is not a streams application (another assignor, or not the consumer protocol). */
export function assertStreamsGroup(d: GroupDescription): void {
  const other = d.protocol !== '' && d.protocol !== STREAMS_PROTOCOL
  if (other || (d.protocolType !== '' && d.protocolType !== 'consumer')) {
    throw new UsageError(
      `group ${d.groupId} is not a streams application (protocol ${d.protocolType}/${d.protocol || '-'}); try \`sluice groups describe ${d.groupId}\``,
    )
  }
}

/** Combines the members' streams userData with committed offsets and log ends. */
export function streamsDescribeView(g: LoadedGroup): StreamsDescribeView {
  const d = g.description
  assertStreamsGroup(d)
  const members = d.members.map((m) => ({
    m,
    subscription: decoded<StreamsSubscriptionInfo>(decodeSubscriptionInfo, m.subscriptionUserData),
    assignment: decoded<StreamsAssignmentInfo>(decodeAssignmentInfo, m.assignmentUserData),
  }))
  const taskKey = (t: { subtopology: number; partition: number }): string => `${t.subtopology}_${t.partition}`
  const instances: StreamsInstanceView[] = members.map(({ m, subscription, assignment }) => ({
    instanceId: subscription?.instanceId ?? null,
    memberId: m.memberId,
    clientHost: m.clientHost,
    endpoint: subscription?.endpoint ? subscription.endpoint : null,
    activeTasks: (assignment?.activeTasks ?? []).map(taskKey),
    standbyTasks: (assignment?.standbyTasks ?? []).map(taskKey),
  }))
  // Every member gets the same sources from the leader; a version 1 leader sends none.
  const sources = members.find((x) => x.assignment?.subtopologySources !== undefined)?.assignment?.subtopologySources
  const ownerOf = new Map<string, number>()
  for (const [id, topics] of sources ?? []) for (const t of topics) ownerOf.set(t, id)

  const tasks = new Map<string, { active: string | null; standbys: string[]; subtopology: number; partition: number }>()
  const taskOf = (subtopology: number, partition: number) => {
    const k = `${subtopology}_${partition}`
    let t = tasks.get(k)
    if (t === undefined) {
      t = { active: null, standbys: [], subtopology, partition }
      tasks.set(k, t)
    }
    return t
  }
  members.forEach(({ assignment }, i) => {
    const who = instances[i]!.instanceId ?? instances[i]!.memberId
    for (const t of assignment?.activeTasks ?? []) taskOf(t.subtopology, t.partition).active = who
    for (const t of assignment?.standbyTasks ?? []) taskOf(t.subtopology, t.partition).standbys.push(who)
  })
  const committedAt = new Map(g.committed.map((c) => [key(c.topic, c.partition), c.offset]))
  const partitionView = (topic: string, partition: number): StreamsPartitionView => {
    const c = committedAt.get(key(topic, partition)) ?? null
    const end = g.logEnds.get(key(topic, partition)) ?? null
    return {
      topic,
      partition,
      committed: c,
      logEnd: end,
      lag: c !== null && end !== null ? (end > c ? end - c : 0n) : null,
    }
  }
  // A task of a committed partition exists even while nobody runs it.
  const otherPartitions: StreamsPartitionView[] = []
  for (const c of g.committed) {
    const s = ownerOf.get(c.topic)
    if (s === undefined) otherPartitions.push(partitionView(c.topic, c.partition))
    else taskOf(s, c.partition)
  }
  const taskViews: StreamsTaskView[] = [...tasks.entries()]
    .sort(([, a], [, b]) => a.subtopology - b.subtopology || a.partition - b.partition)
    .map(([taskId, t]) => {
      // Task s_p reads partition p of every source topic of sub-topology s that has one.
      const topics = (sources?.get(t.subtopology) ?? []).filter(
        (topic) => g.logEnds.has(key(topic, t.partition)) || committedAt.has(key(topic, t.partition)),
      )
      const partitions = [...topics].sort().map((topic) => partitionView(topic, t.partition))
      return {
        taskId,
        active: t.active,
        standbys: t.standbys,
        partitions,
        lag: partitions.reduce((n, p) => n + (p.lag ?? 0n), 0n),
      }
    })
  return {
    applicationId: d.groupId,
    state: d.state,
    generationId: d.generationId,
    instances,
    tasks: taskViews,
    otherPartitions: otherPartitions.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition),
    totalLag: [...taskViews.map((t) => t.lag), ...otherPartitions.map((p) => p.lag ?? 0n)].reduce((a, b) => a + b, 0n),
  }
}

// ---- rendering ----

/** Instance ids are UUIDs: the first 8 characters tell instances apart in a table (JSON has them whole). */
function shortIds(view: StreamsDescribeView): (id: string | null) => string | null {
  const ids = view.instances.map((i) => i.instanceId).filter((id): id is string => id !== null)
  const short = new Set(ids.map((id) => id.slice(0, 8)))
  const unique = short.size === new Set(ids).size
  return (id) => (id === null ? null : unique && ids.includes(id) ? id.slice(0, 8) : id)
}

const list = (xs: readonly string[]): string => (xs.length === 0 ? '-' : xs.join(','))

export function renderStreamsDescription(v: StreamsDescribeView): string {
  const short = shortIds(v)
  const head = `${[
    `application  ${v.applicationId}`,
    `state        ${v.state}`,
    `generation   ${v.generationId}`,
    `instances    ${v.instances.length}`,
    `tasks        ${v.tasks.length}`,
    '',
  ].join('\n')}\n`
  const instances =
    v.instances.length === 0
      ? 'no instance is running: partitions are shown without their tasks\n\n'
      : `${renderTable<StreamsInstanceView>(
          [
            { header: 'INSTANCE', value: (i) => short(i.instanceId) ?? '(unreadable)' },
            { header: 'MEMBER', value: (i) => i.memberId },
            { header: 'HOST', value: (i) => (i.clientHost === '' ? undefined : i.clientHost) },
            { header: 'ENDPOINT', value: (i) => i.endpoint },
            { header: 'ACTIVE', value: (i) => list(i.activeTasks) },
            { header: 'STANDBY', value: (i) => list(i.standbyTasks) },
          ],
          v.instances,
        )}\n`
  type Row = StreamsPartitionView & { task: string; active: string | null; standbys: string }
  const rows: Row[] = [
    ...v.tasks.flatMap((t) => {
      const task = { task: t.taskId, active: short(t.active), standbys: list(t.standbys.map((s) => short(s) ?? s)) }
      return t.partitions.length === 0
        ? [{ ...task, topic: '-', partition: -1, committed: null, logEnd: null, lag: null }]
        : t.partitions.map((p) => ({ ...task, ...p }))
    }),
    ...v.otherPartitions.map((p) => ({ ...p, task: '-', active: null, standbys: '-' })),
  ]
  const table = renderTable<Row>(
    [
      { header: 'TASK', value: (r) => r.task },
      { header: 'ACTIVE', value: (r) => r.active },
      { header: 'STANDBY', value: (r) => r.standbys },
      { header: 'TOPIC', value: (r) => r.topic },
      { header: 'PARTITION', value: (r) => (r.partition < 0 ? undefined : r.partition), align: 'right' },
      { header: 'COMMITTED', value: (r) => r.committed, align: 'right' },
      { header: 'LOG END', value: (r) => r.logEnd, align: 'right' },
      { header: 'LAG', value: (r) => r.lag, align: 'right' },
    ],
    rows,
  )
  return `${head + instances + table}\ntotal lag    ${v.totalLag}\n`
}

// ---- command ----

export async function streamsDescribe(ctx: CommandContext, application: string): Promise<number> {
  return await withClient(ctx, async (client: SluiceClient) => {
    const g = await loadGroup(client, application)
    assertStreamsGroup(g.description)
    // Source topics of tasks nobody runs right now are in no assignment: their ends are read too.
    const logEnds = new Map([...g.logEnds, ...(await sourceEnds(client, g))])
    const view = streamsDescribeView({ ...g, logEnds })
    print(ctx, view, () => renderStreamsDescription(view))
    return 0
  })
}

/** Log ends of the source topics the group's assignments name but `g.logEnds` lacks. */
async function sourceEnds(client: SluiceClient, g: LoadedGroup): Promise<Array<[string, bigint]>> {
  const known = new Set([...g.logEnds.keys()].map((k) => k.slice(0, k.indexOf('\u0000'))))
  const topics = new Set<string>()
  for (const m of g.description.members) {
    const a = decoded<StreamsAssignmentInfo>(decodeAssignmentInfo, m.assignmentUserData)
    for (const ts of a?.subtopologySources?.values() ?? []) for (const t of ts) if (!known.has(t)) topics.add(t)
  }
  if (topics.size === 0) return []
  const ends = await logEndOffsets(
    client,
    [...topics].map((topic) => ({ topic, partition: 0 })),
  )
  return [...ends]
}
