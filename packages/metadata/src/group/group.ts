/**
 * The requests of one consumer group (Kafka's classic protocol, GroupCoordinator.scala):
 * JoinGroup (dynamic and static members), SyncGroup, Heartbeat, LeaveGroup and the membership
 * check of OffsetCommit, on top of the state and transitions of GroupCore (group-core.ts).
 * Requests arrive validated (group-manager.ts); every answer carries a typed error code.
 */
import type { ErrorCodeName, wire } from '@sluice/protocol'
import { EMPTY, GroupCore } from './group-core.js'
import {
  joinError,
  newMember,
  sameProtocols,
  syncError,
  updateMember,
  type JoinInput,
  type Member,
  type SyncInput,
} from './group-member.js'

export type { GroupEnv } from './group-core.js'

export class ConsumerGroup extends GroupCore {
  // ---- JoinGroup -------------------------------------------------------------------------------

  async join(r: JoinInput, now: number): Promise<wire.JoinGroupResponse__Output> {
    if (this.state === 'Dead')
      return joinError('COORDINATOR_NOT_AVAILABLE', `group ${this.groupId} is being removed; retry`)
    if (!this.supportsProtocols(r)) {
      return joinError(
        'INCONSISTENT_GROUP_PROTOCOL',
        this.members.size > 0 && r.protocolType !== this.protocolType
          ? `protocol type "${r.protocolType}" differs from the group's "${this.protocolType}"`
          : `none of the protocols [${r.protocols.map((p) => p.name).join(', ')}] is supported by every member of group ${this.groupId}`,
        r.memberId,
      )
    }
    if (r.memberId === '') {
      if (r.groupInstanceId !== '') return await this.joinStaticWithoutId(r, now)
      // KIP-394: hand out an id and make the member come back with it, so a client that never
      // gets the answer does not leave a phantom member behind.
      const id = this.env.newMemberId(r.clientId === '' ? 'member' : r.clientId)
      this.pendingMembers.set(id, now + r.sessionTimeoutMs)
      return joinError('MEMBER_ID_REQUIRED', 'rejoin with the member id in this response', id)
    }
    if (this.pendingMembers.has(r.memberId) && r.groupInstanceId === '') {
      this.pendingMembers.delete(r.memberId)
      return await this.addMemberAndRebalance(r.memberId, r, now)
    }
    const fenced = this.checkMember(r.memberId, r.groupInstanceId)
    if (fenced !== undefined)
      return joinError(fenced, this.memberProblem(fenced, r.memberId, r.groupInstanceId), r.memberId)
    const m = this.members.get(r.memberId)!
    switch (this.state) {
      case 'PreparingRebalance':
        updateMember(m, r, now)
        return await this.awaitJoin(m, now)
      case 'CompletingRebalance':
        // Unchanged metadata: the member lost our answer; give it again.
        if (sameProtocols(m, r)) return this.joinResponse(m)
        return await this.updateAndRebalance(m, r, now, 'member metadata changed')
      case 'Stable':
        // The leader rejoining forces a rebalance (the assignment may depend on topic metadata).
        if (m.memberId !== this.leaderId && sameProtocols(m, r)) {
          m.heartbeatDeadline = now + m.sessionTimeoutMs
          return this.joinResponse(m)
        }
        return await this.updateAndRebalance(
          m,
          r,
          now,
          m.memberId === this.leaderId ? 'leader rejoined' : 'member metadata changed',
        )
      default:
        return joinError('UNKNOWN_MEMBER_ID', `member ${r.memberId} is not in group ${this.groupId}`, r.memberId)
    }
  }

  /** KIP-345: a static member (re)joining without a member id replaces its previous incarnation. */
  protected async joinStaticWithoutId(r: JoinInput, now: number): Promise<wire.JoinGroupResponse__Output> {
    const newId = this.env.newMemberId(r.groupInstanceId)
    const oldId = this.staticMembers.get(r.groupInstanceId)
    const old = oldId === undefined ? undefined : this.members.get(oldId)
    if (old === undefined) return await this.addMemberAndRebalance(newId, r, now)
    const unchanged = sameProtocols(old, r)
    const m: Member = { ...old, memberId: newId, awaitingJoin: undefined, awaitingSync: undefined }
    updateMember(m, r, now)
    // The old incarnation is fenced: anything it still waits for or sends gets FENCED_INSTANCE_ID.
    old.awaitingJoin?.(
      joinError('FENCED_INSTANCE_ID', `instance ${r.groupInstanceId} rejoined as ${newId}`, old.memberId),
    )
    old.awaitingSync?.(syncError('FENCED_INSTANCE_ID', `instance ${r.groupInstanceId} rejoined as ${newId}`))
    this.members.delete(old.memberId)
    this.members.set(newId, m)
    this.staticMembers.set(r.groupInstanceId, newId)
    if (this.leaderId === old.memberId) this.leaderId = newId
    if (this.pendingSync.delete(old.memberId)) this.pendingSync.add(newId)
    this.event('static member replaced', { instanceId: r.groupInstanceId, oldMemberId: old.memberId, memberId: newId })
    switch (this.state) {
      case 'Stable':
        // Same subscription: it gets its old assignment back through SyncGroup, no rebalance.
        if (unchanged) return this.joinResponse(m, m.memberId === this.leaderId)
        return await this.rebalanceWith(m, now, 'static member metadata changed')
      case 'PreparingRebalance':
        return await this.awaitJoin(m, now)
      default:
        return await this.rebalanceWith(m, now, 'static member rejoined during a rebalance')
    }
  }

  protected async addMemberAndRebalance(
    id: string,
    r: JoinInput,
    now: number,
  ): Promise<wire.JoinGroupResponse__Output> {
    const m = newMember(id, r, now)
    if (this.members.size === 0) this.protocolType = r.protocolType
    this.members.set(id, m)
    if (r.groupInstanceId !== '') this.staticMembers.set(r.groupInstanceId, id)
    if (this.leaderId === '') this.leaderId = id
    this.event('member added', { memberId: id, instanceId: r.groupInstanceId, clientId: r.clientId })
    if (this.state === 'PreparingRebalance') {
      if (now < this.initialDelayDeadline) {
        this.initialDelayDeadline = Math.min(now + this.env.initialRebalanceDelayMs, this.initialDelayCap)
        this.rebalanceDeadline = Math.max(this.rebalanceDeadline, this.initialDelayDeadline)
      }
      return await this.awaitJoin(m, now)
    }
    return await this.rebalanceWith(m, now, 'new member joined')
  }

  protected async updateAndRebalance(
    m: Member,
    r: JoinInput,
    now: number,
    reason: string,
  ): Promise<wire.JoinGroupResponse__Output> {
    updateMember(m, r, now)
    return await this.rebalanceWith(m, now, reason)
  }

  protected async rebalanceWith(m: Member, now: number, reason: string): Promise<wire.JoinGroupResponse__Output> {
    const answer = this.waitForJoin(m)
    this.prepareRebalance(now, reason)
    return await answer
  }

  protected async awaitJoin(m: Member, now: number): Promise<wire.JoinGroupResponse__Output> {
    const answer = this.waitForJoin(m)
    this.tryCompleteJoin(now)
    return await answer
  }

  protected waitForJoin(m: Member): Promise<wire.JoinGroupResponse__Output> {
    // A second JoinGroup of the same member replaces the first, which is told to rejoin.
    m.awaitingJoin?.(
      joinError('REBALANCE_IN_PROGRESS', 'superseded by a newer JoinGroup of the same member', m.memberId),
    )
    return new Promise((resolve) => {
      m.awaitingJoin = resolve
    })
  }

  protected supportsProtocols(r: JoinInput): boolean {
    const others = [...this.members.values()].filter((m) => m.memberId !== r.memberId)
    if (others.length === 0) return r.protocolType !== '' && r.protocols.length > 0
    if (r.protocolType !== this.protocolType) return false
    const names = new Set(r.protocols.map((p) => p.name))
    return [...this.candidateProtocols(others)].some((n) => names.has(n))
  }

  /** Protocol names every given member supports, in the first member's order of preference. */
  // ---- SyncGroup, Heartbeat, LeaveGroup, commits ------------------------------------------------

  async sync(r: SyncInput, now: number): Promise<wire.SyncGroupResponse__Output> {
    const problem = this.checkGeneration(r.memberId, r.groupInstanceId, r.generationId)
    if (problem !== undefined)
      return syncError(problem, this.memberProblem(problem, r.memberId, r.groupInstanceId, r.generationId))
    if (
      (r.protocolType !== '' && r.protocolType !== this.protocolType) ||
      (r.protocolName !== '' && r.protocolName !== this.protocolName)
    ) {
      return syncError(
        'INCONSISTENT_GROUP_PROTOCOL',
        `group ${this.groupId} uses ${this.protocolType}/${this.protocolName}, not ${r.protocolType}/${r.protocolName}`,
      )
    }
    const m = this.members.get(r.memberId)!
    m.heartbeatDeadline = now + m.sessionTimeoutMs
    if (this.state === 'PreparingRebalance')
      return syncError('REBALANCE_IN_PROGRESS', `group ${this.groupId} is rebalancing; rejoin`)
    this.pendingSync.delete(m.memberId)
    if (this.state === 'Stable') return this.syncResponse(m)
    m.awaitingSync?.(syncError('REBALANCE_IN_PROGRESS', 'superseded by a newer SyncGroup of the same member'))
    const answer = new Promise<wire.SyncGroupResponse__Output>((resolve) => {
      m.awaitingSync = resolve
    })
    if (m.memberId === this.leaderId) {
      for (const x of this.members.values()) {
        x.previousAssignment = x.assignment
        x.assignment = r.assignments.get(x.memberId) ?? EMPTY
      }
      this.state = 'Stable'
      this.event('stable', { generationId: this.generationId })
      for (const x of this.members.values()) {
        const reply = x.awaitingSync
        x.awaitingSync = undefined
        reply?.(this.syncResponse(x))
      }
    }
    return await answer
  }

  protected syncResponse(m: Member): wire.SyncGroupResponse__Output {
    return {
      error_code: 0,
      error_message: '',
      protocol_type: this.protocolType,
      protocol_name: this.protocolName,
      assignment: m.assignment,
    }
  }

  heartbeat(memberId: string, instanceId: string, generationId: number, now: number): ErrorCodeName {
    const problem = this.checkGeneration(memberId, instanceId, generationId)
    if (problem !== undefined) return problem
    const m = this.members.get(memberId)!
    m.heartbeatDeadline = now + m.sessionTimeoutMs
    return this.state === 'PreparingRebalance' ? 'REBALANCE_IN_PROGRESS' : 'NONE'
  }

  /** Whether an OffsetCommit may be written (undefined = yes); also counts as a heartbeat. */
  checkCommit(memberId: string, instanceId: string, generationId: number, now: number): ErrorCodeName | undefined {
    if (generationId < 0 && memberId === '' && instanceId === '') {
      // Admin commits (reset-offsets) only touch a group nobody consumes in.
      return this.state === 'Empty' ? undefined : 'NON_EMPTY_GROUP'
    }
    const problem = this.checkGeneration(memberId, instanceId, generationId)
    if (problem !== undefined) return problem
    // Commits stay allowed while preparing a rebalance, so members can commit before revoking.
    if (this.state === 'CompletingRebalance') return 'REBALANCE_IN_PROGRESS'
    const m = this.members.get(memberId)!
    m.heartbeatDeadline = now + m.sessionTimeoutMs
    return undefined
  }

  /** Removes the named members (LeaveGroup); one result per entry. */
  leave(leaving: ReadonlyArray<{ memberId: string; groupInstanceId: string }>, now: number): ErrorCodeName[] {
    let removed = false
    const results = leaving.map(({ memberId, groupInstanceId }): ErrorCodeName => {
      let id = memberId
      if (groupInstanceId !== '') {
        const mapped = this.staticMembers.get(groupInstanceId)
        if (mapped === undefined) return 'UNKNOWN_MEMBER_ID'
        if (id !== '' && id !== mapped) return 'FENCED_INSTANCE_ID'
        id = mapped
      } else if (this.pendingMembers.delete(id)) {
        removed = true
        return 'NONE'
      }
      const m = this.members.get(id)
      if (m === undefined) return 'UNKNOWN_MEMBER_ID'
      if (m.groupInstanceId !== groupInstanceId) return 'FENCED_INSTANCE_ID'
      this.removeMember(m, 'left the group')
      removed = true
      return 'NONE'
    })
    if (removed) this.afterRemoval(now)
    return results
  }
}
