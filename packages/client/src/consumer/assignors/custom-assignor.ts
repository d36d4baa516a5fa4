/**
 * A partition assignor an application brings (Kafka's ConsumerPartitionAssignor), next to the
 * built-in ones, and the one shape group membership runs both through.
 *
 * A custom assignor may put bytes of its own in the member's subscription (subscriptionUserData,
 * read by the leader in assign()) and in each member's assignment (the userData of its result,
 * handed to that member's onAssignment()). Kafka Streams uses this to tell the leader which tasks
 * an instance has state for, and to tell each instance its tasks. The bytes travel in the
 * ConsumerProtocol subscription and assignment userData fields (packages/protocol
 * consumer-protocol.ts), so Kafka clients in the same group read them as Kafka does.
 *
 * Like the built-in ones, assign() runs on the group leader only and must be a pure function of
 * its input: a re-elected leader then computes the same assignment.
 */
import { SluiceError } from '@sluice/protocol'
import type { TopicPartition } from '../consumer-types.js'
import type { Assignor, AssignorMember } from './assignor-types.js'

export interface CustomAssignorMember extends AssignorMember {
  /** What the member's subscriptionUserData() returned; null when it gave none (or is not this assignor's). */
  userData: Buffer | null
}

export interface CustomAssignorInput {
  members: CustomAssignorMember[]
  /** Partition count per subscribed topic that exists. */
  partitionsPerTopic: ReadonlyMap<string, number>
}

export interface CustomMemberAssignment {
  partitions: TopicPartition[]
  /** Handed to the member's onAssignment() as is. */
  userData?: Buffer | null
}

/** memberId -> its assignment; members missing from the map get no partitions and no userData. */
export type CustomAssignment = Map<string, CustomMemberAssignment>

/** What a member received for a generation, as its onAssignment() sees it. */
export interface ReceivedAssignment {
  memberId: string
  generationId: number
  partitions: TopicPartition[]
  userData: Buffer | null
}

export interface CustomAssignor {
  /** The protocol name in JoinGroup; every member of the group must offer an assignor of this name. */
  readonly name: string
  /** As Assignor.rebalanceProtocol: 'eager' revokes everything before a rejoin, 'cooperative' only what moves. */
  readonly rebalanceProtocol: 'eager' | 'cooperative'
  /** Bytes for the leader, asked for at every JoinGroup (so they describe the member's state then). */
  subscriptionUserData?(): Buffer | null
  /**
   * Runs on the leader. The SDK still withholds, as for the built-in assignors, every partition
   * another member reports owning (cooperative handover); a cooperative assignor whose userData
   * describes the partitions should withhold them itself so the two agree.
   */
  assign(input: CustomAssignorInput): CustomAssignment
  /** Runs on every member when SyncGroup answers, before the rebalance listener's callbacks. */
  onAssignment?(assignment: ReceivedAssignment): void
}

/** What membership runs: a built-in assignor or a custom one, in one shape. */
export interface GroupAssignor {
  readonly name: string
  readonly rebalanceProtocol: 'eager' | 'cooperative'
  subscriptionUserData(): Buffer | null
  assign(input: CustomAssignorInput): CustomAssignment
  onAssignment(assignment: ReceivedAssignment): void
}

export function isCustomAssignor(a: unknown): a is CustomAssignor {
  return typeof a === 'object' && a !== null
}

/** Problems with a custom assignor object, empty when it is well formed. */
export function customAssignorProblems(a: CustomAssignor): string[] {
  const problems: string[] = []
  if (typeof a.name !== 'string' || a.name === '') problems.push('a custom assignor needs a non-empty name')
  if (a.rebalanceProtocol !== 'eager' && a.rebalanceProtocol !== 'cooperative')
    problems.push(`custom assignor ${String(a.name)}: rebalanceProtocol must be 'eager' or 'cooperative'`)
  if (typeof a.assign !== 'function') problems.push(`custom assignor ${String(a.name)}: assign must be a function`)
  for (const hook of ['subscriptionUserData', 'onAssignment'] as const)
    if (a[hook] !== undefined && typeof a[hook] !== 'function')
      problems.push(`custom assignor ${String(a.name)}: ${hook} must be a function when given`)
  return problems
}

export function fromBuiltIn(a: Assignor): GroupAssignor {
  return {
    name: a.name,
    rebalanceProtocol: a.rebalanceProtocol,
    subscriptionUserData: () => null,
    assign(input) {
      const out: CustomAssignment = new Map()
      for (const [memberId, partitions] of a.assign(input)) out.set(memberId, { partitions })
      return out
    },
    onAssignment: () => {},
  }
}

export function fromCustom(a: CustomAssignor): GroupAssignor {
  return {
    name: a.name,
    rebalanceProtocol: a.rebalanceProtocol,
    subscriptionUserData: () => checkUserData(a.subscriptionUserData?.() ?? null, `${a.name}.subscriptionUserData()`),
    assign: (input) => checkAssignment(a.assign(input), a.name),
    onAssignment: (assignment) => a.onAssignment?.(assignment),
  }
}

/**
 * A malformed result is a bug in the assignor that every retry would repeat, so it is an
 * INVALID_ARGUMENT error, which ends the consumer (membership treats it as fatal) with a message
 * naming the assignor.
 */
function invalid(what: string): SluiceError {
  return new SluiceError('INVALID_ARGUMENT', `custom assignor ${what}`)
}

function checkUserData(b: unknown, where: string): Buffer | null {
  if (b !== null && !Buffer.isBuffer(b)) throw invalid(`${where} must return a Buffer or null`)
  return b
}

function checkAssignment(result: unknown, name: string): CustomAssignment {
  if (!(result instanceof Map)) throw invalid(`${name}.assign() must return a Map of member id to assignment`)
  for (const [memberId, a] of result as Map<unknown, Partial<CustomMemberAssignment> | undefined>) {
    const where = `${name}.assign() for member ${String(memberId)}`
    if (typeof a !== 'object' || a === null || !Array.isArray(a.partitions))
      throw invalid(`${where}: no partitions list`)
    for (const tp of a.partitions)
      if (typeof tp?.topic !== 'string' || tp.topic === '' || !Number.isInteger(tp.partition) || tp.partition < 0)
        throw invalid(`${where}: bad partition ${JSON.stringify(tp)}`)
    checkUserData(a.userData ?? null, where)
  }
  return result as CustomAssignment
}
