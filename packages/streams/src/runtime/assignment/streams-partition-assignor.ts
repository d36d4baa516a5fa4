/**
 * The streams application's group assignor: the SDK's CustomAssignor over the pure task
 * assignor (task-assignor.ts), as Kafka Streams' StreamsPartitionAssignor. The runtime passes
 * it in GroupConsumerOptions.assignors; the application id is the group id.
 *
 * Inputs (StreamsPartitionAssignorOptions):
 * - `subtopologies`: the topology's sub-topologies with their full source topic names
 *   (TopologyPlan.subtopologies fits). Every instance runs the same topology, so the leader uses
 *   its own. The runtime subscribes the consumer to all these topics, so the SDK hands the
 *   leader their partition counts.
 * - `numStandbyReplicas`: standby copies per task (fewer when there are fewer other instances).
 * - `localState()`: asked at every JoinGroup; this instance's id (stable across restarts: it
 *   names the state directory), its interactive-query endpoint (`host:port`, '' for none), the
 *   tasks it ran as active in the last generation (keep them across an eager revocation), and
 *   the other tasks it holds state for with their changelog lag. It goes to the leader as the
 *   subscription userData (streams-user-data.ts).
 * - `onTasks(assignment)`: called on every member when a generation's assignment arrives, before
 *   the rebalance listener's callbacks: its active tasks, their source partitions, its standby
 *   tasks, and endpoint -> partitions for routing key queries to their owner.
 * - `rebalanceProtocol`: 'eager' (default: every member gives up all its tasks before a
 *   rebalance, so onTasks always describes the whole set) or 'cooperative' (members keep their
 *   tasks through the rebalance; a task that moves is withheld for one round, as in KIP-429:
 *   its old owner revokes it and rejoins, and the follow-up rebalance hands it over).
 *
 * Bad userData from a member never fails the leader: the member is placed as one without state
 * (logged). A member that receives undecodable assignment userData gets a StreamsError from
 * onAssignment, and the SDK logs it and rejoins the group.
 */
import type {
  CustomAssignment,
  CustomAssignor,
  CustomAssignorInput,
  Logger,
  ReceivedAssignment,
  TopicPartition,
} from '@sluice/client'
import { StreamsError } from '../../errors.js'
import {
  decodeAssignmentInfo,
  decodeSubscriptionInfo,
  encodeAssignmentInfo,
  encodeSubscriptionInfo,
  type StreamsAssignmentInfo,
  type StreamsSubscriptionInfo,
} from './streams-user-data.js'
import {
  assignTasks,
  checkSubtopologies,
  compareTps,
  endpointMap,
  taskKey,
  tasksOf,
  type MemberTasks,
  type SubtopologySources,
  type TaskAssignorMember,
  type TaskSources,
} from './task-assignor.js'

/** The group protocol name; not Kafka Streams' 'stream', whose userData layout differs, so a mixed group is refused. */
export const STREAMS_ASSIGNOR_NAME = 'sluice-streams'

export interface StreamsTaskAssignment extends StreamsAssignmentInfo {
  readonly memberId: string
  readonly generationId: number
  /** The source partitions of the active tasks (what the consumer now reads). */
  readonly partitions: readonly TopicPartition[]
}

export interface StreamsPartitionAssignorOptions {
  readonly subtopologies: readonly SubtopologySources[]
  readonly numStandbyReplicas: number
  localState(): StreamsSubscriptionInfo
  onTasks(assignment: StreamsTaskAssignment): void
  readonly rebalanceProtocol?: 'eager' | 'cooperative'
  readonly logger?: Logger
}

export class StreamsPartitionAssignor implements CustomAssignor {
  readonly name = STREAMS_ASSIGNOR_NAME
  readonly rebalanceProtocol: 'eager' | 'cooperative'

  constructor(private readonly options: StreamsPartitionAssignorOptions) {
    const n = options.numStandbyReplicas
    if (!Number.isInteger(n) || n < 0)
      throw new StreamsError('CONFIG', `numStandbyReplicas must be an integer >= 0, got ${String(n)}`)
    const protocol = options.rebalanceProtocol ?? 'eager'
    if (protocol !== 'eager' && protocol !== 'cooperative')
      throw new StreamsError('CONFIG', `rebalanceProtocol must be 'eager' or 'cooperative', got ${String(protocol)}`)
    checkSubtopologies(options.subtopologies)
    if (typeof options.localState !== 'function' || typeof options.onTasks !== 'function')
      throw new StreamsError('CONFIG', 'localState and onTasks must be functions')
    this.rebalanceProtocol = protocol
  }

  subscriptionUserData(): Buffer {
    return encodeSubscriptionInfo(this.options.localState())
  }

  assign(input: CustomAssignorInput): CustomAssignment {
    const members: TaskAssignorMember[] = input.members.map((m) => {
      try {
        return { memberId: m.memberId, info: decodeSubscriptionInfo(m.userData) }
      } catch (err) {
        this.options.logger?.warn(
          { err, memberId: m.memberId },
          'undecodable streams subscription: placed without state',
        )
        return { memberId: m.memberId, info: null }
      }
    })
    const placed = assignTasks({
      subtopologies: this.options.subtopologies,
      partitionsPerTopic: input.partitionsPerTopic,
      members,
      numStandbyReplicas: this.options.numStandbyReplicas,
    })
    const tasks =
      this.rebalanceProtocol === 'cooperative'
        ? withholdClaimed(placed.members, tasksOf(this.options.subtopologies, input.partitionsPerTopic), input)
        : placed.members
    const partitionsByEndpoint = tasks === placed.members ? placed.partitionsByEndpoint : endpointMap(members, tasks)
    const out: CustomAssignment = new Map()
    // For readers outside the app (`sluice streams describe`): which task a partition belongs to.
    const subtopologySources = new Map(this.options.subtopologies.map((s) => [s.id, s.sourceTopics]))
    for (const [memberId, t] of tasks)
      out.set(memberId, {
        partitions: t.partitions,
        userData: encodeAssignmentInfo({
          activeTasks: t.activeTasks,
          standbyTasks: t.standbyTasks,
          partitionsByEndpoint,
          subtopologySources,
        }),
      })
    return out
  }

  onAssignment(a: ReceivedAssignment): void {
    const info = decodeAssignmentInfo(a.userData)
    this.options.onTasks({ ...info, memberId: a.memberId, generationId: a.generationId, partitions: a.partitions })
  }
}

/**
 * Cooperative handover at task level: a task any of whose partitions another member still
 * reports owning is withheld from its new member this round. This is at least as strict as the
 * SDK's own per-partition withholding, so the SDK removes nothing more and the userData and the
 * partitions agree.
 */
export function withholdClaimed(
  tasks: ReadonlyMap<string, MemberTasks>,
  sources: readonly TaskSources[],
  input: CustomAssignorInput,
): Map<string, MemberTasks> {
  const tpKey = (tp: TopicPartition): string => `${tp.topic}\u0000${tp.partition}`
  const claimants = new Map<string, Set<string>>()
  for (const m of input.members)
    for (const tp of m.ownedPartitions ?? [])
      claimants.set(tpKey(tp), (claimants.get(tpKey(tp)) ?? new Set()).add(m.memberId))
  const partitionsOf = new Map(sources.map((t) => [taskKey(t.id), t.partitions]))
  const out = new Map<string, MemberTasks>()
  for (const [memberId, t] of tasks) {
    const activeTasks = t.activeTasks.filter(
      (task) =>
        !(partitionsOf.get(taskKey(task)) ?? []).some((tp) =>
          [...(claimants.get(tpKey(tp)) ?? [])].some((c) => c !== memberId),
        ),
    )
    const partitions = activeTasks.flatMap((task) => partitionsOf.get(taskKey(task)) ?? []).sort(compareTps)
    out.set(memberId, { activeTasks, standbyTasks: t.standbyTasks, partitions })
  }
  return out
}
