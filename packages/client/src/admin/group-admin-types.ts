/** Public types of the admin client's consumer-group calls. */
import type { TopicPartition } from '../consumer/consumer-types.js'

export interface GroupListing {
  groupId: string
  /** 'consumer' for consumer groups. */
  protocolType: string
  /** Empty, PreparingRebalance, CompletingRebalance, Stable or Dead. */
  state: string
}

export interface GroupMemberDescription {
  memberId: string
  groupInstanceId?: string
  clientId: string
  clientHost: string
  /** Decoded from the consumer protocol; empty for other protocol types. */
  assignment: TopicPartition[]
  subscription: string[]
  /**
   * The assignor's own bytes in the member's consumer-protocol assignment and subscription
   * (userData), when it sent any: what a custom assignor (the streams one) tells its members,
   * for tools that know its format (`sluice streams describe`).
   */
  assignmentUserData?: Buffer
  subscriptionUserData?: Buffer
}

export interface GroupDescription {
  groupId: string
  state: string
  protocolType: string
  /** The assignor the group chose (e.g. 'cooperative-sticky'); '' when not stable. */
  protocol: string
  generationId: number
  leader: string
  members: GroupMemberDescription[]
}

export interface GroupOffset extends TopicPartition {
  /** The next offset the group will read. */
  offset: bigint
  metadata: string
}

/** 'earliest' = log start, 'latest' = high watermark, or the first offset at/after a timestamp. */
export type OffsetSpec = 'earliest' | 'latest' | { timestamp: number | bigint }

export interface ListedOffset extends TopicPartition {
  /** -1n when no record has a timestamp at or after the requested one. */
  offset: bigint
  timestamp: bigint
}

export type ResetSpec =
  | 'earliest'
  | 'latest'
  | { offset: bigint }
  | { timestamp: number | bigint }
  | { shiftBy: bigint }

export interface OffsetResetPlanItem extends TopicPartition {
  /** The committed offset before the reset, -1n when none. */
  current: bigint
  /** The offset committed by the reset (clamped into [log start, log end]). */
  target: bigint
}
