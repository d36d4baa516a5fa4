/**
 * The core of one consumer group's state machine (Kafka's GroupMetadata.scala and the rebalance
 * half of GroupCoordinator.scala): state, members, generations, and the transitions driven by
 * time (`tick(now)`, never timers of its own) and by removals. Requests live in group.ts.
 *
 * States: Empty -> PreparingRebalance -> CompletingRebalance -> Stable -> (PreparingRebalance...),
 * and Dead once removed. Invariants:
 * - A generation's members all got a JoinGroup answer with the same generation id; the leader's
 *   answer lists every member with its subscription metadata.
 * - PreparingRebalance completes when every member waits in JoinGroup and no handed-out member
 *   id is still expected, or at the rebalance deadline (the largest rebalance timeout): dynamic
 *   members that did not rejoin are dropped then. A rebalance that starts from Empty first waits
 *   the initial delay (extended by each new joiner, capped by the rebalance timeout).
 * - A member waiting in JoinGroup or SyncGroup is never evicted by its session timeout; every
 *   other member is, once `heartbeatDeadline` passed. Members that have not sent SyncGroup
 *   within the rebalance timeout after the join completed are removed too.
 * - All time comes in as `now` (ms), so tests drive it with a fake clock.
 */
import { errorId, type ErrorCodeName, type wire } from '@sluice/protocol'
import { joinError, metadataFor, syncError, type GroupState, type Member } from './group-member.js'

export interface GroupEnv {
  readonly initialRebalanceDelayMs: number
  /** A fresh member id: `${prefix}-${uuid}`. */
  readonly newMemberId: (prefix: string) => string
  readonly onEvent?: (groupId: string, event: string, details: Record<string, unknown>) => void
}

export const EMPTY = Buffer.alloc(0)

export abstract class GroupCore {
  state: GroupState = 'Empty'
  generationId = 0
  protocolType = ''
  protocolName = ''
  leaderId = ''
  /** Insertion order = join order; the leader's member list follows it. */
  readonly members = new Map<string, Member>()
  /** group.instance.id -> current member id. */
  protected readonly staticMembers = new Map<string, string>()
  /** Member ids handed out with MEMBER_ID_REQUIRED -> the time they are forgotten if not used. */
  protected readonly pendingMembers = new Map<string, number>()
  protected readonly pendingSync = new Set<string>()
  protected rebalanceDeadline = 0
  protected initialDelayDeadline = 0
  protected initialDelayCap = 0
  protected syncDeadline = 0
  /** When the group last became Empty (offset retention counts from here). */
  emptySince: number

  constructor(
    readonly groupId: string,
    protected readonly env: GroupEnv,
    now: number,
  ) {
    this.emptySince = now
  }

  hasPendingMembers(): boolean {
    return this.pendingMembers.size > 0
  }

  protected joinResponse(m: Member, skipAssignment = false): wire.JoinGroupResponse__Output {
    const isLeader = m.memberId === this.leaderId
    return {
      error_code: 0,
      error_message: '',
      generation_id: this.generationId,
      protocol_type: this.protocolType,
      protocol_name: this.protocolName,
      leader: this.leaderId,
      member_id: m.memberId,
      members: isLeader
        ? [...this.members.values()].map((x) => ({
            member_id: x.memberId,
            group_instance_id: x.groupInstanceId,
            metadata: metadataFor(x, this.protocolName),
            client_id: x.clientId,
            client_host: x.clientHost,
          }))
        : [],
      skip_assignment: skipAssignment,
    }
  }

  protected candidateProtocols(members: readonly Member[]): Set<string> {
    const [first, ...rest] = members
    if (first === undefined) return new Set()
    return new Set(
      first.protocols.map((p) => p.name).filter((n) => rest.every((m) => m.protocols.some((p) => p.name === n))),
    )
  }

  /** Each member votes for its most preferred candidate; most votes wins, ties by candidate order. */
  protected selectProtocol(): string {
    const all = [...this.members.values()]
    const candidates = [...this.candidateProtocols(all)]
    const votes = new Map(candidates.map((c) => [c, 0]))
    for (const m of all) {
      const choice = m.protocols.find((p) => votes.has(p.name))
      if (choice !== undefined) votes.set(choice.name, votes.get(choice.name)! + 1)
    }
    let best = candidates[0] ?? ''
    for (const c of candidates) if (votes.get(c)! > votes.get(best)!) best = c
    return best
  }

  // ---- rebalance ------------------------------------------------------------------------------

  protected prepareRebalance(now: number, reason: string): void {
    if (this.state === 'CompletingRebalance') {
      for (const m of this.members.values()) {
        m.assignment = EMPTY
        const reply = m.awaitingSync
        m.awaitingSync = undefined
        reply?.(syncError('REBALANCE_IN_PROGRESS', `group ${this.groupId} is rebalancing again: ${reason}`))
      }
    }
    const fromEmpty = this.state === 'Empty'
    this.pendingSync.clear()
    this.state = 'PreparingRebalance'
    const timeout = this.maxRebalanceTimeout()
    if (fromEmpty && this.env.initialRebalanceDelayMs > 0) {
      this.initialDelayDeadline = now + this.env.initialRebalanceDelayMs
      this.initialDelayCap = now + Math.max(timeout, this.env.initialRebalanceDelayMs)
    } else {
      this.initialDelayDeadline = 0
    }
    this.rebalanceDeadline = Math.max(now + timeout, this.initialDelayDeadline)
    this.event('preparing rebalance', { reason, generationId: this.generationId, members: this.members.size })
    this.tryCompleteJoin(now)
  }

  protected maxRebalanceTimeout(): number {
    let t = 0
    for (const m of this.members.values()) t = Math.max(t, m.rebalanceTimeoutMs)
    return t
  }

  protected tryCompleteJoin(now: number): void {
    if (this.state !== 'PreparingRebalance' || now < this.initialDelayDeadline) return
    let allJoined = this.pendingMembers.size === 0
    for (const m of this.members.values()) if (m.awaitingJoin === undefined) allJoined = false
    if (allJoined || now >= this.rebalanceDeadline) this.completeJoin(now)
  }

  protected completeJoin(now: number): void {
    for (const m of [...this.members.values()]) {
      // Static members that did not rejoin stay until their session times out (KIP-345).
      if (m.awaitingJoin === undefined && m.groupInstanceId === '')
        this.removeMember(m, 'did not rejoin within the rebalance timeout')
    }
    this.initialDelayDeadline = 0
    const joined = [...this.members.values()].filter((m) => m.awaitingJoin !== undefined)
    if (this.members.size > 0 && joined.length === 0) {
      // Only static members that did not rejoin: wait for their sessions to expire or for them.
      this.rebalanceDeadline = now + this.maxRebalanceTimeout()
      return
    }
    if (joined.length > 0 && !joined.some((m) => m.memberId === this.leaderId)) this.leaderId = joined[0]!.memberId
    this.generationId += 1
    if (this.members.size === 0) {
      this.toEmpty(now)
      this.event('group is empty', { generationId: this.generationId })
      return
    }
    this.protocolName = this.selectProtocol()
    this.state = 'CompletingRebalance'
    this.syncDeadline = now + this.maxRebalanceTimeout()
    for (const m of this.members.values()) {
      this.pendingSync.add(m.memberId)
      m.heartbeatDeadline = now + m.sessionTimeoutMs
    }
    this.event('join completed', {
      generationId: this.generationId,
      protocol: this.protocolName,
      leader: this.leaderId,
      members: this.members.size,
    })
    for (const m of this.members.values()) {
      const reply = m.awaitingJoin
      m.awaitingJoin = undefined
      reply?.(this.joinResponse(m))
    }
  }

  protected toEmpty(now: number): void {
    this.state = 'Empty'
    this.protocolName = ''
    this.leaderId = ''
    this.pendingSync.clear()
    this.emptySince = now
  }

  // ---- time -------------------------------------------------------------------------------------

  /** Applies every deadline that passed: pending ids, sessions, syncs, the join delay and timeout. */
  tick(now: number): void {
    if (this.state === 'Dead') return
    let changed = false
    for (const [id, deadline] of this.pendingMembers)
      if (now >= deadline) {
        this.pendingMembers.delete(id)
        changed = true
      }
    for (const m of [...this.members.values()]) {
      if (m.awaitingJoin === undefined && m.awaitingSync === undefined && now >= m.heartbeatDeadline) {
        this.removeMember(m, 'session timed out')
        changed = true
      }
    }
    if (
      (this.state === 'CompletingRebalance' || this.state === 'Stable') &&
      this.pendingSync.size > 0 &&
      now >= this.syncDeadline
    ) {
      for (const id of [...this.pendingSync]) {
        const m = this.members.get(id)
        if (m !== undefined) this.removeMember(m, 'did not send SyncGroup within the rebalance timeout')
      }
      this.pendingSync.clear()
      changed = true
    }
    if (changed) this.afterRemoval(now)
    else this.tryCompleteJoin(now)
  }

  protected afterRemoval(now: number): void {
    if (this.state === 'Stable' || this.state === 'CompletingRebalance') this.prepareRebalance(now, 'members left')
    else this.tryCompleteJoin(now)
  }

  // ---- helpers ----------------------------------------------------------------------------------

  protected removeMember(m: Member, reason: string): void {
    this.members.delete(m.memberId)
    if (m.groupInstanceId !== '' && this.staticMembers.get(m.groupInstanceId) === m.memberId)
      this.staticMembers.delete(m.groupInstanceId)
    this.pendingSync.delete(m.memberId)
    if (this.leaderId === m.memberId) this.leaderId = this.members.keys().next().value ?? ''
    const message = `member ${m.memberId} was removed from group ${this.groupId}: ${reason}`
    m.awaitingJoin?.(joinError('UNKNOWN_MEMBER_ID', message, m.memberId))
    m.awaitingSync?.(syncError('UNKNOWN_MEMBER_ID', message))
    m.awaitingJoin = undefined
    m.awaitingSync = undefined
    this.event('member removed', { memberId: m.memberId, reason })
  }

  /** FENCED_INSTANCE_ID / UNKNOWN_MEMBER_ID for a request naming a member, else undefined. */
  protected checkMember(memberId: string, instanceId: string): ErrorCodeName | undefined {
    if (this.state === 'Dead') return 'COORDINATOR_NOT_AVAILABLE'
    if (instanceId !== '') {
      const mapped = this.staticMembers.get(instanceId)
      if (mapped !== undefined && mapped !== memberId) return 'FENCED_INSTANCE_ID'
    }
    const m = this.members.get(memberId)
    if (m === undefined) return 'UNKNOWN_MEMBER_ID'
    if (m.groupInstanceId !== instanceId) return 'FENCED_INSTANCE_ID'
    return undefined
  }

  protected checkGeneration(memberId: string, instanceId: string, generationId: number): ErrorCodeName | undefined {
    return (
      this.checkMember(memberId, instanceId) ?? (generationId !== this.generationId ? 'ILLEGAL_GENERATION' : undefined)
    )
  }

  protected memberProblem(code: ErrorCodeName, memberId: string, instanceId: string, generationId?: number): string {
    switch (code) {
      case 'FENCED_INSTANCE_ID':
        return `instance ${instanceId} of group ${this.groupId} belongs to another member than ${memberId}`
      case 'ILLEGAL_GENERATION':
        return `generation ${String(generationId)} is not group ${this.groupId}'s current generation ${this.generationId}`
      case 'UNKNOWN_MEMBER_ID':
        return `member ${memberId === '' ? '(empty)' : memberId} is not in group ${this.groupId}`
      default:
        return `group ${this.groupId}: ${code}`
    }
  }

  /** Marks the group removed and answers every waiting request. */
  kill(code: ErrorCodeName, message: string): void {
    this.state = 'Dead'
    for (const m of this.members.values()) {
      m.awaitingJoin?.(joinError(code, message, m.memberId))
      m.awaitingSync?.(syncError(code, message))
      m.awaitingJoin = undefined
      m.awaitingSync = undefined
    }
  }

  protected event(event: string, details: Record<string, unknown>): void {
    this.env.onEvent?.(this.groupId, event, details)
  }

  describe(): wire.DescribedGroup__Output {
    return {
      error_code: errorId('NONE'),
      error_message: '',
      group_id: this.groupId,
      state: this.state,
      protocol_type: this.protocolType,
      protocol_name: this.protocolName,
      generation_id: this.generationId,
      leader: this.leaderId,
      members: [...this.members.values()].map((m) => ({
        member_id: m.memberId,
        group_instance_id: m.groupInstanceId,
        client_id: m.clientId,
        client_host: m.clientHost,
        metadata: metadataFor(m, this.protocolName !== '' ? this.protocolName : (m.protocols[0]?.name ?? '')),
        assignment: m.assignment,
      })),
    }
  }
}
