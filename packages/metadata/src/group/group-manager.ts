/**
 * Every consumer group of this coordinator: validates the membership requests (JoinGroup,
 * SyncGroup, Heartbeat, LeaveGroup) before they reach a group, creates groups on their first
 * JoinGroup, and drives all of them with ONE sweep timer (session, rebalance, sync and initial
 * delay deadlines), never a timer per member. A rejected request changes nothing: no group is
 * created for it and no member is touched.
 */
import { randomUUID } from 'node:crypto'
import {
  SluiceError,
  decodeAssignment,
  errorId,
  systemClock,
  type Clock,
  type ErrorCodeName,
  type Timer,
  type wire,
} from '@sluice/protocol'
import type { Logger } from 'pino'
import { ConsumerGroup } from './group.js'
import { joinError, syncError, type GroupState, type JoinInput, type Protocol } from './group-member.js'
import type { ResolvedGroupConfig } from './group-config.js'

export const GROUP_ID_MAX_LENGTH = 1000
const ID_MAX_LENGTH = 1000
const MAX_PROTOCOLS = 64
const MAX_PROTOCOL_BYTES = 4 * 1024 * 1024

export interface GroupManagerOptions {
  readonly config: ResolvedGroupConfig
  readonly logger: Logger
  /** Times the sweep and every liveness deadline (default: systemClock). */
  readonly clock?: Clock
  readonly newMemberId?: (prefix: string) => string
}

/** Why a group id cannot be used, or undefined. */
export function groupIdProblem(groupId: string): string | undefined {
  if (typeof groupId !== 'string' || groupId === '') return 'the group id is empty'
  if (groupId.length > GROUP_ID_MAX_LENGTH)
    return `the group id is ${groupId.length} characters, the limit is ${GROUP_ID_MAX_LENGTH}`
  return undefined
}

export class GroupManager {
  readonly groups = new Map<string, ConsumerGroup>()
  /** Group lifecycle events ("preparing rebalance", ...), for metrics; set by the owner. */
  onGroupEvent: ((groupId: string, event: string) => void) | undefined
  private readonly clock: Clock
  private readonly newMemberId: (prefix: string) => string
  private sweeper: Timer | undefined

  constructor(private readonly options: GroupManagerOptions) {
    this.clock = options.clock ?? systemClock
    this.newMemberId = options.newMemberId ?? ((prefix) => `${prefix}-${randomUUID()}`)
  }

  start(): void {
    this.sweeper ??= this.clock
      .setInterval(() => {
        this.tick()
      }, this.options.config.sweepIntervalMs)
      .unref()
  }

  /** Stops the sweep and answers every waiting JoinGroup/SyncGroup with COORDINATOR_NOT_AVAILABLE. */
  stop(): void {
    this.sweeper?.cancel()
    this.sweeper = undefined
    for (const g of this.groups.values()) g.kill('COORDINATOR_NOT_AVAILABLE', 'the group coordinator is shutting down')
    this.groups.clear()
  }

  tick(now = this.clock.nowMs()): void {
    for (const g of this.groups.values()) {
      try {
        g.tick(now)
      } catch (e) {
        this.options.logger.error({ err: e, groupId: g.groupId }, 'group sweep failed')
      }
    }
  }

  get(groupId: string): ConsumerGroup | undefined {
    return this.groups.get(groupId)
  }

  /** Forgets an Empty group (DeleteGroups, offset expiry); waiting requests get `code`. */
  remove(groupId: string): void {
    const g = this.groups.get(groupId)
    if (g === undefined) return
    g.kill('COORDINATOR_NOT_AVAILABLE', `group ${groupId} was removed`)
    this.groups.delete(groupId)
  }

  async join(req: wire.JoinGroupRequest__Output, peerHost: string): Promise<wire.JoinGroupResponse__Output> {
    const bad = (code: ErrorCodeName, message: string): wire.JoinGroupResponse__Output =>
      joinError(code, message, req.member_id ?? '')
    const idProblem = groupIdProblem(req.group_id)
    if (idProblem !== undefined) return bad('INVALID_GROUP_ID', idProblem)
    const { minSessionTimeoutMs: min, maxSessionTimeoutMs: max } = this.options.config
    if (!Number.isInteger(req.session_timeout_ms) || req.session_timeout_ms < min || req.session_timeout_ms > max) {
      return bad('INVALID_SESSION_TIMEOUT', `session_timeout_ms ${req.session_timeout_ms} must be in ${min}..${max}`)
    }
    if (!Number.isInteger(req.rebalance_timeout_ms) || req.rebalance_timeout_ms < 0) {
      return bad(
        'INVALID_REQUEST',
        `rebalance_timeout_ms ${req.rebalance_timeout_ms} must be >= 0 (0 = the session timeout)`,
      )
    }
    if (
      req.member_id.length > ID_MAX_LENGTH ||
      req.group_instance_id.length > ID_MAX_LENGTH ||
      req.client_id.length > ID_MAX_LENGTH
    ) {
      return bad(
        'INVALID_REQUEST',
        `member_id, group_instance_id and client_id are limited to ${ID_MAX_LENGTH} characters`,
      )
    }
    if (req.protocol_type === '' || req.protocols.length === 0) {
      return bad('INCONSISTENT_GROUP_PROTOCOL', 'protocol_type and at least one protocol are required')
    }
    const protocols = checkProtocols(req.protocols)
    if (typeof protocols === 'string') return bad('INVALID_REQUEST', protocols)
    let group = this.groups.get(req.group_id)
    if (group === undefined) {
      // Only a first join (no member id) creates a group; a stale member must start over.
      if (req.member_id !== '')
        return bad(
          'UNKNOWN_MEMBER_ID',
          `group ${req.group_id} has no member ${req.member_id}; rejoin without a member id`,
        )
      group = this.newGroup(req.group_id)
    }
    const input: JoinInput = {
      memberId: req.member_id,
      groupInstanceId: req.group_instance_id,
      clientId: req.client_id,
      clientHost: req.client_host !== '' ? req.client_host : peerHost,
      sessionTimeoutMs: req.session_timeout_ms,
      rebalanceTimeoutMs: req.rebalance_timeout_ms === 0 ? req.session_timeout_ms : req.rebalance_timeout_ms,
      protocolType: req.protocol_type,
      protocols,
    }
    const res = await group.join(input, this.clock.nowMs())
    this.dropIfUnused(group)
    return res
  }

  async sync(req: wire.SyncGroupRequest__Output): Promise<wire.SyncGroupResponse__Output> {
    const idProblem = groupIdProblem(req.group_id)
    if (idProblem !== undefined) return syncError('INVALID_GROUP_ID', idProblem)
    const group = this.groups.get(req.group_id)
    if (group === undefined) return syncError('UNKNOWN_MEMBER_ID', `group ${req.group_id} has no members; rejoin`)
    const assignments = new Map<string, Buffer>()
    for (const a of req.assignments) assignments.set(a.member_id, Buffer.from(a.assignment))
    return await group.sync(
      {
        memberId: req.member_id,
        groupInstanceId: req.group_instance_id,
        generationId: req.generation_id,
        protocolType: req.protocol_type,
        protocolName: req.protocol_name,
        assignments,
      },
      this.clock.nowMs(),
    )
  }

  heartbeat(req: wire.HeartbeatRequest__Output): wire.HeartbeatResponse__Output {
    const idProblem = groupIdProblem(req.group_id)
    if (idProblem !== undefined) return { error_code: errorId('INVALID_GROUP_ID'), error_message: idProblem }
    const group = this.groups.get(req.group_id)
    if (group === undefined)
      return { error_code: errorId('UNKNOWN_MEMBER_ID'), error_message: `group ${req.group_id} has no members; rejoin` }
    const code = group.heartbeat(req.member_id, req.group_instance_id, req.generation_id, this.clock.nowMs())
    return { error_code: errorId(code), error_message: code === 'NONE' ? '' : heartbeatMessage(code, req) }
  }

  leave(req: wire.LeaveGroupRequest__Output): wire.LeaveGroupResponse__Output {
    const idProblem = groupIdProblem(req.group_id)
    if (idProblem !== undefined)
      return { error_code: errorId('INVALID_GROUP_ID'), error_message: idProblem, members: [] }
    if (req.members.length === 0)
      return { error_code: errorId('INVALID_REQUEST'), error_message: 'no members to remove', members: [] }
    const group = this.groups.get(req.group_id)
    if (group === undefined)
      return {
        error_code: errorId('GROUP_ID_NOT_FOUND'),
        error_message: `group ${req.group_id} does not exist`,
        members: [],
      }
    const codes = group.leave(
      req.members.map((m) => ({ memberId: m.member_id, groupInstanceId: m.group_instance_id })),
      this.clock.nowMs(),
    )
    for (const [i, m] of req.members.entries()) {
      if (codes[i] === 'NONE')
        this.options.logger.info(
          { groupId: req.group_id, memberId: m.member_id, instanceId: m.group_instance_id, reason: m.reason },
          'member left',
        )
    }
    return {
      error_code: 0,
      error_message: '',
      members: req.members.map((m, i) => ({
        member_id: m.member_id,
        group_instance_id: m.group_instance_id,
        error_code: errorId(codes[i]!),
        error_message:
          codes[i] === 'NONE'
            ? ''
            : `cannot remove member ${m.member_id}${m.group_instance_id !== '' ? ` (instance ${m.group_instance_id})` : ''}: ${codes[i]!}`,
      })),
    }
  }

  /** Whether this commit's sender may commit for the group (undefined = yes). */
  checkCommit(groupId: string, memberId: string, instanceId: string, generationId: number): ErrorCodeName | undefined {
    const group = this.groups.get(groupId)
    if (group !== undefined) return group.checkCommit(memberId, instanceId, generationId, this.clock.nowMs())
    // No membership here: only an admin commit (generation < 0, no member) may write. A member
    // of a generation this coordinator never saw (e.g. before a restart) must rejoin first.
    return generationId < 0 && memberId === '' && instanceId === '' ? undefined : 'UNKNOWN_MEMBER_ID'
  }

  /**
   * The partitions a member of a consumer group ("consumer" protocol) may commit, as
   * "topic/partition" keys: those of its last two SyncGroup assignments (a cooperative member
   * commits what it is about to revoke after learning of it). Undefined when there is nothing
   * to hold a commit against (an admin commit, another protocol type, or bytes that are not
   * Kafka's layout).
   */
  assignedPartitions(groupId: string, memberId: string): Set<string> | undefined {
    const group = this.groups.get(groupId)
    const member = memberId === '' ? undefined : group?.members.get(memberId)
    if (group === undefined || member === undefined || group.protocolType !== 'consumer') return undefined
    const decode = (b: Buffer): string[] | undefined => {
      try {
        return decodeAssignment(b).partitions.map((tp) => `${tp.topic}/${tp.partition}`)
      } catch {
        return undefined
      }
    }
    const current = decode(member.assignment)
    return current === undefined ? undefined : new Set([...current, ...(decode(member.previousAssignment) ?? [])])
  }

  states(): Array<{ groupId: string; state: GroupState; protocolType: string }> {
    return [...this.groups.values()].map((g) => ({ groupId: g.groupId, state: g.state, protocolType: g.protocolType }))
  }

  private newGroup(groupId: string): ConsumerGroup {
    const log = this.options.logger
    const g = new ConsumerGroup(
      groupId,
      {
        initialRebalanceDelayMs: this.options.config.initialRebalanceDelayMs,
        newMemberId: this.newMemberId,
        onEvent: (id, event, details) => {
          this.onGroupEvent?.(id, event)
          log.info({ groupId: id, ...details }, event)
        },
      },
      this.clock.nowMs(),
    )
    this.groups.set(groupId, g)
    return g
  }

  /** A group created by a join that left nothing behind (MEMBER_ID_REQUIRED keeps a pending id) stays; one with nothing is dropped. */
  private dropIfUnused(g: ConsumerGroup): void {
    if (g.state === 'Empty' && g.members.size === 0 && g.generationId === 0 && !g.hasPendingMembers()) {
      if (this.groups.get(g.groupId) === g) this.groups.delete(g.groupId)
    }
  }
}

function checkProtocols(list: readonly wire.GroupProtocol__Output[]): Protocol[] | string {
  if (list.length > MAX_PROTOCOLS) return `at most ${MAX_PROTOCOLS} protocols`
  const seen = new Set<string>()
  let bytes = 0
  for (const p of list) {
    if (p.name === '' || p.name.length > 255) return 'protocol names must be 1..255 characters'
    if (seen.has(p.name)) return `protocol ${p.name} is listed twice`
    seen.add(p.name)
    bytes += p.metadata.length
  }
  if (bytes > MAX_PROTOCOL_BYTES) return `protocol metadata of ${bytes} bytes exceeds ${MAX_PROTOCOL_BYTES}`
  return list.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) }))
}

function heartbeatMessage(code: ErrorCodeName, req: wire.HeartbeatRequest__Output): string {
  switch (code) {
    case 'REBALANCE_IN_PROGRESS':
      return `group ${req.group_id} is rebalancing; rejoin`
    case 'ILLEGAL_GENERATION':
      return `generation ${req.generation_id} is not the current generation of group ${req.group_id}`
    case 'UNKNOWN_MEMBER_ID':
      return `member ${req.member_id} is not in group ${req.group_id}`
    case 'FENCED_INSTANCE_ID':
      return `instance ${req.group_instance_id} of group ${req.group_id} now belongs to another member`
    default:
      return new SluiceError(code).message
  }
}
