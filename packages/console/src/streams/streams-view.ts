/**
 * A streams application as `sluice streams describe` and the console show it: its tasks, the
 * instance running each (active and standby) and every task's input partitions with their lag.
 * The application is the consumer group of the same id; what only the streams assignor knows
 * (task ids, standbys, instance ids, which sub-topology reads which topic) is in the userData of
 * each member's subscription and assignment, which describeGroups hands over as bytes and the
 * streams package's own codec reads (docs/decisions.md, "The console reads streams userData").
 * Pure: the caller loads the group, its committed offsets and log ends.
 */
import type { GroupDescription } from '@sluice/client'
import {
  decodeAssignmentInfo,
  decodeSubscriptionInfo,
  type StreamsAssignmentInfo,
  type StreamsSubscriptionInfo,
} from '@sluice/streams/user-data'
import { tpKey } from '../log-offsets.js'

/** What the view is computed from: the coordinator's view, committed offsets and log ends. */
export interface StreamsGroupSnapshot {
  readonly description: GroupDescription
  readonly committed: ReadonlyArray<{ topic: string; partition: number; offset: bigint }>
  readonly logEnds: ReadonlyMap<string, bigint>
}

/** The streams assignor's protocol name (STREAMS_ASSIGNOR_NAME in @sluice/streams). */
export const STREAMS_PROTOCOL = 'sluice-streams'

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

function decoded<T>(decode: (b: Buffer | null) => T, bytes: Buffer | undefined): T | undefined {
  try {
    return decode(bytes ?? null)
  } catch {
    return undefined
  }
}

/**
 * Whether a group can be a streams application: the consumer protocol with the streams
 * assignor, or an Empty group (no members, so no protocol chosen yet) of the consumer type.
 */
export function isStreamsGroup(d: GroupDescription): boolean {
  return (
    (d.protocol === '' || d.protocol === STREAMS_PROTOCOL) && (d.protocolType === '' || d.protocolType === 'consumer')
  )
}

/** Whether a group is known to be a streams application: some member runs the streams assignor. */
export const runsStreamsAssignor = (d: GroupDescription): boolean => d.protocol === STREAMS_PROTOCOL

/**
 * Source topics the members' assignments name (every member gets them all from the leader),
 * so the caller can read the log ends of tasks nobody runs right now.
 */
export function streamsSourceTopics(d: GroupDescription): string[] {
  const topics = new Set<string>()
  for (const m of d.members) {
    const a = decoded<StreamsAssignmentInfo>(decodeAssignmentInfo, m.assignmentUserData)
    for (const ts of a?.subtopologySources?.values() ?? []) for (const t of ts) topics.add(t)
  }
  return [...topics]
}

/** Combines the members' streams userData with committed offsets and log ends. */
export function streamsDescribeView(g: StreamsGroupSnapshot): StreamsDescribeView {
  const d = g.description
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
  const committedAt = new Map(g.committed.map((c) => [tpKey(c.topic, c.partition), c.offset]))
  const partitionView = (topic: string, partition: number): StreamsPartitionView => {
    const c = committedAt.get(tpKey(topic, partition)) ?? null
    const end = g.logEnds.get(tpKey(topic, partition)) ?? null
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
        (topic) => g.logEnds.has(tpKey(topic, t.partition)) || committedAt.has(tpKey(topic, t.partition)),
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
