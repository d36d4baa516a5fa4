/**
 * Group membership, Kafka's classic protocol from the member's side (docs/kafka-facts.md §5.2):
 *
 *   JoinGroup (MEMBER_ID_REQUIRED -> rejoin with the given id) -> the leader runs the assignor
 *   over every member's subscription -> SyncGroup -> the host applies the assignment -> Stable,
 *   with Heartbeats on their own timer until a rebalance, a fatal error or close.
 *
 * - The rebalance protocol follows the last generation's assignor: after an eager one (range,
 *   roundrobin) the member revokes everything before rejoining; after cooperative-sticky it keeps
 *   consuming what it owns and revokes only what the new assignment takes away, then rejoins at
 *   once so the follow-up rebalance can hand those partitions over.
 * - The leader withholds any partition another member still claims (cooperativeAdjust) whatever
 *   the assignor, so a group switching protocols never has two consumers on one partition.
 * - Errors (as Kafka reacts): REBALANCE_IN_PROGRESS -> rejoin; ILLEGAL_GENERATION -> partitions
 *   lost, rejoin; UNKNOWN_MEMBER_ID -> lost, forget the member id, rejoin; NOT_COORDINATOR /
 *   COORDINATOR_NOT_AVAILABLE / transport -> next metadata-service instance after a backoff;
 *   FENCED_INSTANCE_ID and configuration errors (INVALID_SESSION_TIMEOUT,
 *   INCONSISTENT_GROUP_PROTOCOL, INVALID_GROUP_ID) are fatal and end the consumer.
 * - Max poll interval: when the host reports the application has not polled for
 *   maxPollIntervalMs, the member leaves (LeaveGroup; a static member just stops heartbeating,
 *   as in Kafka) and rejoins only when the application polls again.
 */
import {
  SluiceError,
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
  type wire,
} from '@sluice/protocol'
import type { Logger } from '../../logger.js'
import type { RetryOptions } from '../../options.js'
import { backoffMs, sleep } from '../../retry.js'
import type { CustomAssignorMember, GroupAssignor } from '../assignors/custom-assignor.js'
import { cooperativeAdjust } from '../assignors/index.js'
import type { TopicPartition } from '../consumer-types.js'
import { type CoordinatorClient, responseOf } from './coordinator-client.js'
import type { ResolvedGroupOptions } from './group-options.js'

export interface MembershipHost {
  subscribedTopics(): string[]
  ownedPartitions(): TopicPartition[]
  /** Before an eager rejoin: commit (with autoCommit), call onPartitionsRevoked, drop everything. */
  revokeAll(): Promise<void>
  /** The generation is gone: call onPartitionsLost and drop everything, without committing. */
  loseAll(): Promise<void>
  /** Applies a new assignment; resolves with what was revoked (non-empty means rejoin). */
  applyAssignment(partitions: TopicPartition[]): Promise<TopicPartition[]>
  /** Partition counts of existing topics among `topics`. */
  partitionCounts(topics: string[]): Promise<Map<string, number>>
  pollExpired(): boolean
  /** A fatal error ended the membership. */
  fail(err: SluiceError): void
}

/** The group options membership acts on, plus the client's request settings. */
export interface MembershipOptions
  extends Pick<
    ResolvedGroupOptions,
    'groupId' | 'groupInstanceId' | 'sessionTimeoutMs' | 'heartbeatIntervalMs' | 'maxPollIntervalMs' | 'assignors'
  > {
  clientId: string
  requestTimeoutMs: number
  retry: RetryOptions
}

export type MembershipState = 'unjoined' | 'rebalancing' | 'stable' | 'left' | 'closed' | 'failed'

const FATAL = new Set([
  'FENCED_INSTANCE_ID',
  'INVALID_SESSION_TIMEOUT',
  'INCONSISTENT_GROUP_PROTOCOL',
  'INVALID_GROUP_ID',
  'INVALID_REQUEST',
  'INVALID_ARGUMENT',
  'CLIENT_CLOSED',
])

export class GroupMembership {
  memberId = ''
  generationId = -1
  protocolName = ''
  leaderId = ''
  state: MembershipState = 'unjoined'
  /** Partition counts the leader last assigned with (to notice added partitions). */
  assignedCounts: Map<string, number> | undefined
  /** Subscribed topics the leader found no metadata for at the last assignment. */
  missingTopics: string[] = []
  private needRejoin = true
  /** Counts requestRejoin calls, so a request made during a join round is not lost (joinOnce). */
  private rejoinRequests = 0
  private quiescing = false
  private joining = false
  private failures = 0
  private wake: (() => void) | undefined
  private loop: Promise<void> | undefined
  private heartbeatTimer: NodeJS.Timeout | undefined
  private readonly abort = new AbortController()

  constructor(
    private readonly coordinator: CoordinatorClient,
    private readonly host: MembershipHost,
    private readonly options: MembershipOptions,
    private readonly log: Logger,
  ) {}

  get isLeader(): boolean {
    return this.memberId !== '' && this.memberId === this.leaderId
  }
  get inGeneration(): boolean {
    return this.state === 'stable' || (this.state === 'rebalancing' && this.generationId >= 0)
  }

  start(): void {
    this.loop ??= this.run()
  }

  /** A method, not a property check: TypeScript would narrow `state` across awaits. */
  ended(): boolean {
    return this.state === 'closed' || this.state === 'failed'
  }

  /** Asks for a rebalance (subscription or metadata change, revoked partitions, coordinator request). */
  requestRejoin(reason: string): void {
    if (this.state === 'closed' || this.state === 'failed') return
    if (!this.needRejoin) this.log.info({ reason, groupId: this.options.groupId }, 'rejoining the group')
    this.needRejoin = true
    this.rejoinRequests++
    this.notify()
  }

  /** The application polled: a member that left for a poll timeout rejoins. */
  notify(): void {
    const w = this.wake
    this.wake = undefined
    w?.()
  }

  /**
   * Before close: start no new JoinGroup round, and wait (at most timeoutMs) for the one in
   * progress to finish, so the final commit carries the generation the group knows.
   */
  async quiesce(timeoutMs: number): Promise<void> {
    this.quiescing = true
    const deadline = Date.now() + timeoutMs
    while (this.joining && Date.now() < deadline) await sleep(20)
  }

  /** Stops heartbeats and the join loop; LeaveGroup for a dynamic member still in the group. */
  async close(options: { leave: boolean }): Promise<void> {
    if (this.state === 'closed') return
    const wasMember = this.memberId !== '' && this.state !== 'failed'
    this.state = 'closed'
    this.stopHeartbeats()
    this.abort.abort(new SluiceError('CLIENT_CLOSED', 'the consumer is closed'))
    this.notify()
    await this.loop?.catch(() => {})
    if (options.leave && wasMember && this.options.groupInstanceId === '')
      await this.leaveGroup('the consumer is closing')
  }

  private async run(): Promise<void> {
    while (this.state !== 'closed' && this.state !== 'failed') {
      if (!this.needRejoin || this.quiescing || this.host.pollExpired()) {
        await new Promise<void>((resolve) => {
          this.wake = resolve
          setTimeout(resolve, 1000).unref()
        })
        continue
      }
      this.joining = true
      try {
        await this.joinOnce()
        this.failures = 0
      } catch (err) {
        if (this.ended()) return
        const e =
          err instanceof SluiceError
            ? err
            : new SluiceError('INTERNAL_ERROR', `group membership failed: ${String(err)}`, {}, { cause: err })
        if (FATAL.has(e.code)) {
          this.state = 'failed'
          this.stopHeartbeats()
          this.host.fail(e)
          return
        }
        this.log.warn({ err: e, groupId: this.options.groupId }, 'joining the group failed, retrying')
        this.failures++
        await sleep(backoffMs(this.options.retry, Math.min(this.failures, 20)), this.abort.signal).catch(() => {})
      } finally {
        this.joining = false
      }
    }
  }

  /** One JoinGroup + SyncGroup round; throws what the run loop should back off on or fail with. */
  private async joinOnce(): Promise<void> {
    // A rejoin asked for once this round has begun may come after the subscription was sent or
    // the leader's assign() read the application's state (a Connect worker adding work while its
    // SyncGroup is in flight): it needs a round of its own, so only requests until now are served.
    const requestsServed = this.rejoinRequests
    this.stopHeartbeats()
    const wasStable = this.state === 'stable'
    this.state = 'rebalancing'
    if (this.protocolName !== '' && this.assignorNamed(this.protocolName).rebalanceProtocol === 'eager' && wasStable) {
      await this.host.revokeAll()
    }
    const join = await this.join()
    if (join === undefined) return // rejoin at once (member id given, or generation reset)
    this.generationId = join.generation_id
    this.memberId = join.member_id
    this.protocolName = join.protocol_name
    this.leaderId = join.leader
    const assignments =
      this.isLeader && !join.skip_assignment ? await this.assign(join.members, join.protocol_name) : []
    let sync: wire.SyncGroupResponse__Output
    try {
      sync = await this.coordinator.call<wire.SyncGroupResponse__Output>(
        'SyncGroup',
        (c, o, cb) =>
          c.SyncGroup(
            {
              group_id: this.options.groupId,
              generation_id: this.generationId,
              member_id: this.memberId,
              group_instance_id: this.options.groupInstanceId,
              protocol_type: 'consumer',
              protocol_name: this.protocolName,
              assignments,
            },
            o,
            cb,
          ),
        {
          retry: false,
          timeoutMs: this.options.maxPollIntervalMs + this.options.requestTimeoutMs,
          signal: this.abort.signal,
        },
      )
    } catch (err) {
      await this.onGroupError(err)
      return
    }
    let received: { partitions: TopicPartition[]; userData: Buffer | null }
    try {
      received = decodeAssignment(sync.assignment)
    } catch (err) {
      throw new SluiceError(
        'INVALID_REQUEST',
        `the group leader sent an undecodable assignment: ${(err as Error).message}`,
        {},
        { cause: err },
      )
    }
    // Before the listener's callbacks, as Kafka calls ConsumerPartitionAssignor.onAssignment.
    const { partitions, userData } = received
    this.assignorNamed(this.protocolName).onAssignment({
      memberId: this.memberId,
      generationId: this.generationId,
      partitions: [...partitions],
      userData,
    })
    this.needRejoin = this.rejoinRequests !== requestsServed
    this.state = 'stable'
    this.startHeartbeats()
    this.log.info(
      {
        groupId: this.options.groupId,
        generationId: this.generationId,
        memberId: this.memberId,
        protocol: this.protocolName,
        partitions: partitions.length,
      },
      'joined the group',
    )
    const revoked = await this.host.applyAssignment(partitions)
    if (revoked.length > 0) this.requestRejoin(`${revoked.length} partition(s) revoked`)
  }

  private async join(): Promise<wire.JoinGroupResponse__Output | undefined> {
    const topics = this.host.subscribedTopics()
    const ownedPartitions = this.host.ownedPartitions()
    // One subscription per offered assignor: each carries its own userData.
    const protocols = this.options.assignors.map((a) => ({
      name: a.name,
      metadata: encodeSubscription({
        topics,
        ownedPartitions,
        generationId: this.generationId,
        userData: a.subscriptionUserData(),
      }),
    }))
    try {
      return await this.coordinator.call<wire.JoinGroupResponse__Output>(
        'JoinGroup',
        (c, o, cb) =>
          c.JoinGroup(
            {
              group_id: this.options.groupId,
              session_timeout_ms: this.options.sessionTimeoutMs,
              rebalance_timeout_ms: this.options.maxPollIntervalMs,
              member_id: this.memberId,
              group_instance_id: this.options.groupInstanceId,
              protocol_type: 'consumer',
              protocols,
              client_id: this.options.clientId,
              client_host: '',
            },
            o,
            cb,
          ),
        {
          retry: false,
          timeoutMs: this.options.maxPollIntervalMs + this.options.requestTimeoutMs + 5000,
          signal: this.abort.signal,
        },
      )
    } catch (err) {
      const res = responseOf<wire.JoinGroupResponse__Output>(err)
      if (
        err instanceof SluiceError &&
        err.code === 'MEMBER_ID_REQUIRED' &&
        res !== undefined &&
        res.member_id !== ''
      ) {
        this.memberId = res.member_id
        return undefined
      }
      await this.onGroupError(err)
      return undefined
    }
  }

  /** Errors of JoinGroup / SyncGroup / Heartbeat / OffsetCommit that reset or end membership. */
  async onGroupError(err: unknown): Promise<void> {
    if (!(err instanceof SluiceError)) throw err
    switch (err.code) {
      case 'REBALANCE_IN_PROGRESS':
        this.requestRejoin('the group is rebalancing')
        return
      case 'ILLEGAL_GENERATION':
        await this.resetGeneration(false, err.code)
        return
      case 'UNKNOWN_MEMBER_ID':
        await this.resetGeneration(true, err.code)
        return
      default:
        throw err
    }
  }

  private async resetGeneration(forgetMemberId: boolean, why: string): Promise<void> {
    this.log.warn(
      { groupId: this.options.groupId, memberId: this.memberId, generationId: this.generationId, why },
      'lost the group generation',
    )
    this.stopHeartbeats()
    this.generationId = -1
    this.protocolName = ''
    if (forgetMemberId) this.memberId = ''
    if (this.state !== 'closed' && this.state !== 'failed' && this.state !== 'left') this.state = 'unjoined'
    this.requestRejoin(why)
    await this.host.loseAll()
  }

  private async assign(members: wire.JoinGroupMember__Output[], protocol: string): Promise<wire.SyncGroupAssignment[]> {
    const assignor = this.assignorNamed(protocol)
    const input: CustomAssignorMember[] = members.map((m) => {
      try {
        const s = decodeSubscription(m.metadata)
        return {
          memberId: m.member_id,
          groupInstanceId: m.group_instance_id || undefined,
          topics: s.topics,
          ownedPartitions: s.ownedPartitions,
          generation: s.generationId,
          userData: s.userData,
        }
      } catch (err) {
        this.log.warn({ err, memberId: m.member_id }, 'undecodable subscription: the member gets no partitions')
        return { memberId: m.member_id, topics: [], userData: null }
      }
    })
    const topics = [...new Set(input.flatMap((m) => m.topics))]
    const counts = await this.host.partitionCounts(topics)
    this.missingTopics = topics.filter((t) => !counts.has(t))
    const request = { members: input, partitionsPerTopic: counts }
    const result = assignor.assign(request)
    const partitionsOf = new Map(input.map((m) => [m.memberId, result.get(m.memberId)?.partitions ?? []]))
    const adjusted = cooperativeAdjust(partitionsOf, request)
    this.assignedCounts = counts
    return [...adjusted].map(([memberId, partitions]) => ({
      member_id: memberId,
      assignment: encodeAssignment({ partitions, userData: result.get(memberId)?.userData ?? null }),
    }))
  }

  /** The group's protocol is one this member offered (the coordinator picks among those). */
  private assignorNamed(name: string): GroupAssignor {
    const a = this.options.assignors.find((x) => x.name === name)
    if (a === undefined)
      throw new SluiceError(
        'INCONSISTENT_GROUP_PROTOCOL',
        `the group chose assignor ${JSON.stringify(name)}, which this member does not offer`,
      )
    return a
  }

  private startHeartbeats(): void {
    this.stopHeartbeats()
    const tick = (): void => {
      this.heartbeatTimer = undefined
      if (this.state !== 'stable') return
      this.heartbeat()
        .catch((err: unknown) => {
          this.log.error({ err }, 'heartbeat handling failed')
        })
        .finally(() => {
          if (this.state === 'stable' && this.heartbeatTimer === undefined) {
            this.heartbeatTimer = setTimeout(tick, this.options.heartbeatIntervalMs)
            this.heartbeatTimer.unref()
          }
        })
    }
    this.heartbeatTimer = setTimeout(tick, this.options.heartbeatIntervalMs)
    this.heartbeatTimer.unref()
  }

  private stopHeartbeats(): void {
    clearTimeout(this.heartbeatTimer)
    this.heartbeatTimer = undefined
  }

  private async heartbeat(): Promise<void> {
    if (this.host.pollExpired()) {
      await this.leaveForPollTimeout()
      return
    }
    const generationId = this.generationId
    try {
      await this.coordinator.call<wire.HeartbeatResponse__Output>(
        'Heartbeat',
        (c, o, cb) =>
          c.Heartbeat(
            {
              group_id: this.options.groupId,
              generation_id: generationId,
              member_id: this.memberId,
              group_instance_id: this.options.groupInstanceId,
            },
            o,
            cb,
          ),
        {
          retry: false,
          timeoutMs: Math.min(this.options.requestTimeoutMs, this.options.sessionTimeoutMs),
          signal: this.abort.signal,
        },
      )
    } catch (err) {
      if (this.state !== 'stable' || generationId !== this.generationId) return // a rejoin already moved on
      if (err instanceof SluiceError && FATAL.has(err.code)) {
        this.state = 'failed'
        this.stopHeartbeats()
        this.host.fail(err)
        return
      }
      if (
        err instanceof SluiceError &&
        (err.code === 'REBALANCE_IN_PROGRESS' || err.code === 'ILLEGAL_GENERATION' || err.code === 'UNKNOWN_MEMBER_ID')
      ) {
        await this.onGroupError(err)
        return
      }
      this.log.debug({ err, groupId: this.options.groupId }, 'heartbeat failed; trying again at the next interval')
    }
  }

  private async leaveForPollTimeout(): Promise<void> {
    this.log.warn(
      { groupId: this.options.groupId, memberId: this.memberId, maxPollIntervalMs: this.options.maxPollIntervalMs },
      'the application did not poll within maxPollIntervalMs: leaving the group until it polls again',
    )
    this.stopHeartbeats()
    this.state = 'left'
    if (this.options.groupInstanceId === '') await this.leaveGroup('max poll interval exceeded')
    this.generationId = -1
    this.protocolName = ''
    if (this.options.groupInstanceId === '') this.memberId = ''
    this.needRejoin = true
    await this.host.loseAll()
  }

  private async leaveGroup(reason: string): Promise<void> {
    const memberId = this.memberId
    if (memberId === '') return
    try {
      await this.coordinator.call<wire.LeaveGroupResponse__Output>(
        'LeaveGroup',
        (c, o, cb) =>
          c.LeaveGroup(
            {
              group_id: this.options.groupId,
              members: [{ member_id: memberId, group_instance_id: this.options.groupInstanceId, reason }],
            },
            o,
            cb,
          ),
        { retry: false },
      )
    } catch (err) {
      this.log.debug(
        { err, groupId: this.options.groupId },
        'LeaveGroup failed (the session timeout will remove the member)',
      )
    }
  }
}
