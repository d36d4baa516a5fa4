/**
 * Places a streams application's tasks on its members: a pure function, no I/O, the same output
 * for the same input (a re-elected group leader computes the same placement).
 *
 * A task is (sub-topology, partition number); it reads that partition of every source topic of
 * its sub-topology, so co-partitioned topics meet in one task. A sub-topology has as many tasks
 * as its largest source topic has partitions (the runtime checks co-partitioning before).
 *
 * Active tasks, in three steps:
 * 1. Sticky: a task stays on the member that ran it in the last generation (a task two members
 *    claim goes to the first in member order).
 * 2. Tasks without an owner go to a member holding their state (a standby, or a copy left from
 *    before) with the least lag, among members below the balanced share ceil(tasks / members);
 *    else to the least-loaded member.
 * 3. Balance: while the most-loaded member has two or more tasks above the least-loaded one, one
 *    task moves between them: the one the receiver has the freshest state for, else one the
 *    giver did not run before, else the giver's highest. So active counts end within one, and
 *    only as many tasks move as the balance needs.
 * Standby tasks: min(numStandbyReplicas, instances - 1) copies per task of a stateful
 * sub-topology (a stateless task has nothing to keep warm), each on a different
 * instance and never on the instance of the active copy (an instance may run several members;
 * they share its state directory). A copy goes to a member below the balanced standby share
 * first, preferring the freshest state it already holds, then the fewest tasks in all; then
 * copies move from the most- to the least-loaded member (freshest state first) while counts
 * differ by two or more and a move is allowed.
 *
 * Members are ordered by instance id, then member id: instance ids survive restarts (member ids
 * do not), so a restarted instance finds the same order.
 */
import type { TopicPartition } from '@sluice/client'
import type { TaskId } from '../../api/task-id.js'
import { StreamsError } from '../../errors.js'
import type { StreamsSubscriptionInfo } from './streams-user-data.js'

export interface SubtopologySources {
  readonly id: number
  readonly sourceTopics: readonly string[]
  /**
   * False: its tasks keep no state a changelog restores, so they get no standby copies (one
   * would hold nothing). Absent: true.
   */
  readonly stateful?: boolean
}

export interface TaskAssignorMember {
  readonly memberId: string
  /** Its decoded subscription userData; null when it sent none or it could not be read (no state, no endpoint). */
  readonly info: StreamsSubscriptionInfo | null
}

export interface TaskAssignmentInput {
  readonly subtopologies: readonly SubtopologySources[]
  /** Partition count per existing topic; a sub-topology without any existing source topic has no tasks. */
  readonly partitionsPerTopic: ReadonlyMap<string, number>
  readonly members: readonly TaskAssignorMember[]
  readonly numStandbyReplicas: number
}

export interface MemberTasks {
  readonly activeTasks: TaskId[]
  readonly standbyTasks: TaskId[]
  /** The source partitions of the active tasks, sorted by topic then partition. */
  readonly partitions: TopicPartition[]
}

export interface TaskAssignment {
  /** Every input member has an entry. */
  readonly members: Map<string, MemberTasks>
  /** Endpoint -> the source partitions active there (members without an endpoint are left out). */
  readonly partitionsByEndpoint: Map<string, TopicPartition[]>
}

export interface TaskSources {
  readonly id: TaskId
  readonly partitions: readonly TopicPartition[]
  /** Whether its sub-topology keeps state (see SubtopologySources.stateful). */
  readonly stateful: boolean
}

export const taskKey = (t: TaskId): string => `${t.subtopology}_${t.partition}`

export const compareTasks = (a: TaskId, b: TaskId): number => a.subtopology - b.subtopology || a.partition - b.partition

/** Lags may be Infinity (no state); a plain difference of two would be NaN. */
const compareLags = (a: number, b: number): number => (a === b ? 0 : a < b ? -1 : 1)

export const compareTps = (a: TopicPartition, b: TopicPartition): number =>
  a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition

/** Every task of the topology with its source partitions, in task order. */
export function tasksOf(
  subtopologies: readonly SubtopologySources[],
  partitionsPerTopic: ReadonlyMap<string, number>,
): TaskSources[] {
  const out: TaskSources[] = []
  for (const s of [...subtopologies].sort((a, b) => a.id - b.id)) {
    const topics = [...new Set(s.sourceTopics)].sort()
    const counts = topics.map((t) => partitionsPerTopic.get(t) ?? 0)
    const n = Math.max(0, ...counts)
    for (let p = 0; p < n; p++)
      out.push({
        id: { subtopology: s.id, partition: p },
        partitions: topics.filter((_, i) => counts[i]! > p).map((topic) => ({ topic, partition: p })),
        stateful: s.stateful !== false,
      })
  }
  return out
}

/** Distinct ids >= 0, each with a list of non-empty topic names; else a StreamsError 'TOPOLOGY'. */
export function checkSubtopologies(subtopologies: readonly SubtopologySources[]): void {
  if (!Array.isArray(subtopologies)) throw new StreamsError('TOPOLOGY', 'subtopologies must be an array')
  const ids = new Set<number>()
  for (const s of subtopologies) {
    if (!Number.isInteger(s?.id) || s.id < 0 || ids.has(s.id))
      throw new StreamsError('TOPOLOGY', `sub-topology ids must be distinct integers >= 0, got ${s?.id}`, {
        details: { id: s?.id },
      })
    if (!Array.isArray(s.sourceTopics) || !s.sourceTopics.every((t: unknown) => typeof t === 'string' && t !== ''))
      throw new StreamsError('TOPOLOGY', `sub-topology ${s.id} needs a list of source topic names`, {
        details: { id: s.id },
      })
    if (s.stateful !== undefined && typeof s.stateful !== 'boolean')
      throw new StreamsError('TOPOLOGY', `sub-topology ${s.id}: stateful must be a boolean`, { details: { id: s.id } })
    ids.add(s.id)
  }
}

function checkInput(input: TaskAssignmentInput): void {
  const n = input.numStandbyReplicas
  if (!Number.isInteger(n) || n < 0)
    throw new StreamsError('CONFIG', `numStandbyReplicas must be an integer >= 0, got ${n}`, {
      details: { numStandbyReplicas: n },
    })
  checkSubtopologies(input.subtopologies)
  const members = new Set<string>()
  for (const m of input.members) {
    if (members.has(m.memberId))
      throw new StreamsError('RUNTIME', `member ${m.memberId} is listed twice`, { details: { memberId: m.memberId } })
    members.add(m.memberId)
  }
}

/** The lag of `member`'s state for the task: 0 when it ran it, its reported lag for a standby, undefined without state. */
function stateIndex(members: readonly TaskAssignorMember[]): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>()
  for (const m of members) {
    const lags = new Map<string, number>()
    for (const s of m.info?.standbyTasks ?? [])
      lags.set(taskKey(s.task), Math.min(s.lag, lags.get(taskKey(s.task)) ?? Infinity))
    for (const t of m.info?.activeTasks ?? []) lags.set(taskKey(t), 0)
    out.set(m.memberId, lags)
  }
  return out
}

export function assignTasks(input: TaskAssignmentInput): TaskAssignment {
  checkInput(input)
  const instanceOf = (m: TaskAssignorMember): string =>
    m.info !== null && m.info.instanceId !== '' ? m.info.instanceId : m.memberId
  const members = [...input.members].sort((a, b) => {
    const ia = instanceOf(a)
    const ib = instanceOf(b)
    if (ia !== ib) return ia < ib ? -1 : 1
    return a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0
  })
  const order = new Map(members.map((m, i) => [m.memberId, i]))
  const tasks = tasksOf(input.subtopologies, input.partitionsPerTopic)
  const byKey = new Map(tasks.map((t) => [taskKey(t.id), t]))
  const lagOf = stateIndex(members)
  const lag = (memberId: string, k: string): number => lagOf.get(memberId)!.get(k) ?? Infinity
  const ranBefore = (memberId: string, k: string): boolean => lagOf.get(memberId)!.get(k) === 0

  const active = new Map<string, Set<string>>(members.map((m) => [m.memberId, new Set()]))
  const ownerOf = new Map<string, string>()
  const load = (memberId: string): number => active.get(memberId)!.size
  const give = (k: string, memberId: string): void => {
    const from = ownerOf.get(k)
    if (from !== undefined) active.get(from)!.delete(k)
    active.get(memberId)!.add(k)
    ownerOf.set(k, memberId)
  }

  if (members.length > 0) {
    // 1. Sticky: previous active owners keep their tasks.
    for (const m of members)
      for (const t of m.info?.activeTasks ?? []) {
        const k = taskKey(t)
        if (byKey.has(k) && !ownerOf.has(k)) give(k, m.memberId)
      }
    // 2. The rest: to the freshest state below the balanced share, else the least-loaded member.
    const share = Math.ceil(tasks.length / members.length)
    const byLoad = (a: TaskAssignorMember, b: TaskAssignorMember): number =>
      load(a.memberId) - load(b.memberId) || order.get(a.memberId)! - order.get(b.memberId)!
    for (const t of tasks) {
      const k = taskKey(t.id)
      if (ownerOf.has(k)) continue
      const warm = members
        .filter((m) => lag(m.memberId, k) !== Infinity && load(m.memberId) < share)
        .sort((a, b) => compareLags(lag(a.memberId, k), lag(b.memberId, k)) || byLoad(a, b))
      give(k, (warm[0] ?? [...members].sort(byLoad)[0]!).memberId)
    }
    // 3. Balance: each move lowers the sum of squared loads by at least 2, so it ends.
    for (let guard = tasks.length * tasks.length + 1; guard > 0; guard--) {
      const sorted = [...members].sort(byLoad)
      const to = sorted[0]!
      const from = sorted.reduce((best, m) => (load(m.memberId) > load(best.memberId) ? m : best))
      if (load(from.memberId) - load(to.memberId) <= 1) break
      const candidates = [...active.get(from.memberId)!].sort(
        (a, b) =>
          compareLags(lag(to.memberId, a), lag(to.memberId, b)) ||
          Number(ranBefore(from.memberId, a)) - Number(ranBefore(from.memberId, b)) ||
          compareTasks(byKey.get(b)!.id, byKey.get(a)!.id),
      )
      give(candidates[0]!, to.memberId)
    }
  }

  // Standby copies, each on its own instance, never beside the active copy.
  const standby = new Map<string, Set<string>>(members.map((m) => [m.memberId, new Set()]))
  const instances = new Set(members.map(instanceOf))
  const copies = Math.min(input.numStandbyReplicas, Math.max(0, instances.size - 1))
  const stateful = tasks.filter((t) => t.stateful)
  const standbyShare = members.length > 0 ? Math.ceil((stateful.length * copies) / members.length) : 0
  for (const t of copies > 0 ? stateful : []) {
    const k = taskKey(t.id)
    const owner = members[order.get(ownerOf.get(k)!)!]!
    const used = new Set([instanceOf(owner)])
    for (let c = 0; c < copies; c++) {
      const pick = members
        .filter((m) => !used.has(instanceOf(m)))
        .sort(
          (a, b) =>
            Number(standby.get(a.memberId)!.size >= standbyShare) -
              Number(standby.get(b.memberId)!.size >= standbyShare) ||
            compareLags(lag(a.memberId, k), lag(b.memberId, k)) ||
            load(a.memberId) + standby.get(a.memberId)!.size - (load(b.memberId) + standby.get(b.memberId)!.size) ||
            order.get(a.memberId)! - order.get(b.memberId)!,
        )[0]
      if (pick === undefined) break
      standby.get(pick.memberId)!.add(k)
      used.add(instanceOf(pick))
    }
  }
  // Standby balance: a copy moves from the member with the most to one with two or more fewer
  // that may hold it (no copy of the task on its instance yet), freshest state first. Each move
  // lowers the sum of squared counts, so it ends; constraints may leave counts further apart.
  const holders = (k: string): Set<string> => {
    const out = new Set([instanceOf(members[order.get(ownerOf.get(k)!)!]!)])
    for (const m of members) if (standby.get(m.memberId)!.has(k)) out.add(instanceOf(m))
    return out
  }
  const standbyCount = (m: TaskAssignorMember): number => standby.get(m.memberId)!.size
  for (let guard = stateful.length * copies * stateful.length * copies + 1; copies > 0 && guard > 0; guard--) {
    const byCount = [...members].sort(
      (a, b) => standbyCount(a) - standbyCount(b) || order.get(a.memberId)! - order.get(b.memberId)!,
    )
    let moved = false
    for (const from of [...byCount].reverse()) {
      for (const to of byCount) {
        if (standbyCount(to) > standbyCount(from) - 2) break
        const movable = [...standby.get(from.memberId)!]
          .filter((k) => instanceOf(to) === instanceOf(from) || !holders(k).has(instanceOf(to)))
          .sort(
            (a, b) =>
              compareLags(lag(to.memberId, a), lag(to.memberId, b)) || compareTasks(byKey.get(b)!.id, byKey.get(a)!.id),
          )
        if (movable.length === 0) continue
        standby.get(from.memberId)!.delete(movable[0]!)
        standby.get(to.memberId)!.add(movable[0]!)
        moved = true
        break
      }
      if (moved) break
    }
    if (!moved) break
  }

  const out = new Map<string, MemberTasks>()
  for (const m of input.members) {
    const activeTasks = [...active.get(m.memberId)!].map((k) => byKey.get(k)!.id).sort(compareTasks)
    const partitions = activeTasks.flatMap((t) => byKey.get(taskKey(t))!.partitions).sort(compareTps)
    const standbyTasks = [...standby.get(m.memberId)!].map((k) => byKey.get(k)!.id).sort(compareTasks)
    out.set(m.memberId, { activeTasks, standbyTasks, partitions })
  }
  return { members: out, partitionsByEndpoint: endpointMap(input.members, out) }
}

/**
 * Endpoint -> the active partitions of the members there, both sorted (Map iteration follows
 * insertion, so sorted keys make the encoded assignment the same for the same input).
 */
export function endpointMap(
  members: readonly TaskAssignorMember[],
  tasks: ReadonlyMap<string, MemberTasks>,
): Map<string, TopicPartition[]> {
  const byEndpoint = new Map<string, TopicPartition[]>()
  for (const m of members) {
    const endpoint = m.info?.endpoint ?? ''
    const partitions = tasks.get(m.memberId)?.partitions ?? []
    if (endpoint !== '') byEndpoint.set(endpoint, [...(byEndpoint.get(endpoint) ?? []), ...partitions])
  }
  for (const tps of byEndpoint.values()) tps.sort(compareTps)
  return new Map([...byEndpoint].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}
