/**
 * One member of a consumer group as the coordinator keeps it (in memory only: members rejoin
 * after a metadata-service restart), and the shapes of the validated requests the group state
 * machine works on. The subscription metadata and assignment bytes are opaque here: the group
 * leader computes assignments on the client side, as in Kafka's classic protocol.
 */
import { errorId, type ErrorCodeName, type wire } from '@sluice/protocol'

export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead'

export const GROUP_STATES: readonly GroupState[] = [
  'Empty',
  'PreparingRebalance',
  'CompletingRebalance',
  'Stable',
  'Dead',
]

export interface Protocol {
  readonly name: string
  readonly metadata: Buffer
}

/** A JoinGroup after validation (timeouts checked, rebalance timeout defaulted, host filled in). */
export interface JoinInput {
  readonly memberId: string
  /** '' for a dynamic member. */
  readonly groupInstanceId: string
  readonly clientId: string
  readonly clientHost: string
  readonly sessionTimeoutMs: number
  readonly rebalanceTimeoutMs: number
  readonly protocolType: string
  readonly protocols: readonly Protocol[]
}

export interface SyncInput {
  readonly memberId: string
  readonly groupInstanceId: string
  readonly generationId: number
  readonly protocolType: string
  readonly protocolName: string
  /** Only the leader's are used; member id -> assignment bytes. */
  readonly assignments: ReadonlyMap<string, Buffer>
}

export type JoinReply = (res: wire.JoinGroupResponse__Output) => void
export type SyncReply = (res: wire.SyncGroupResponse__Output) => void

export interface Member {
  readonly memberId: string
  readonly groupInstanceId: string
  clientId: string
  clientHost: string
  sessionTimeoutMs: number
  rebalanceTimeoutMs: number
  protocolType: string
  protocols: readonly Protocol[]
  /** The assignment the leader gave this member in the last SyncGroup (empty before). */
  assignment: Buffer
  /**
   * The one before it: with the cooperative protocol a member learns in SyncGroup which
   * partitions it loses and commits them (in the new generation) before revoking them.
   */
  previousAssignment: Buffer
  /** Evicted when a sweep finds now >= this and the member waits in neither JoinGroup nor SyncGroup. */
  heartbeatDeadline: number
  /** Set while the member's JoinGroup long-polls for the rebalance to complete. */
  awaitingJoin: JoinReply | undefined
  /** Set while the member's SyncGroup waits for the leader's assignments. */
  awaitingSync: SyncReply | undefined
}

export function newMember(memberId: string, r: JoinInput, now: number): Member {
  return {
    memberId,
    groupInstanceId: r.groupInstanceId,
    clientId: r.clientId,
    clientHost: r.clientHost,
    sessionTimeoutMs: r.sessionTimeoutMs,
    rebalanceTimeoutMs: r.rebalanceTimeoutMs,
    protocolType: r.protocolType,
    protocols: r.protocols,
    assignment: Buffer.alloc(0),
    previousAssignment: Buffer.alloc(0),
    heartbeatDeadline: now + r.sessionTimeoutMs,
    awaitingJoin: undefined,
    awaitingSync: undefined,
  }
}

/** Copies what a (re)join may change: client identity, timeouts and protocols. */
export function updateMember(m: Member, r: JoinInput, now: number): void {
  m.clientId = r.clientId
  m.clientHost = r.clientHost
  m.sessionTimeoutMs = r.sessionTimeoutMs
  m.rebalanceTimeoutMs = r.rebalanceTimeoutMs
  m.protocolType = r.protocolType
  m.protocols = r.protocols
  m.heartbeatDeadline = now + r.sessionTimeoutMs
}

/** True when the member's protocols (names, order and metadata) are unchanged. */
export function sameProtocols(m: Member, r: JoinInput): boolean {
  if (m.protocolType !== r.protocolType || m.protocols.length !== r.protocols.length) return false
  return m.protocols.every((p, i) => p.name === r.protocols[i]!.name && p.metadata.equals(r.protocols[i]!.metadata))
}

export function metadataFor(m: Member, protocolName: string): Buffer {
  return m.protocols.find((p) => p.name === protocolName)?.metadata ?? Buffer.alloc(0)
}

export function joinError(code: ErrorCodeName, message: string, memberId = ''): wire.JoinGroupResponse__Output {
  return {
    error_code: errorId(code),
    error_message: message,
    generation_id: -1,
    protocol_type: '',
    protocol_name: '',
    leader: '',
    member_id: memberId,
    members: [],
    skip_assignment: false,
  }
}

export function syncError(code: ErrorCodeName, message: string): wire.SyncGroupResponse__Output {
  return {
    error_code: errorId(code),
    error_message: message,
    protocol_type: '',
    protocol_name: '',
    assignment: Buffer.alloc(0),
  }
}
