/**
 * A follower fetch as the replica fetcher (replica-fetcher.ts) and its transports
 * (replica-fetch-transport.ts) speak it: offsets and epochs as bigints, fields named as Kafka's.
 *
 * Why not the gRPC wire types: their int64s are decimal strings, so on the Kafka transport (the
 * default) every fetch, hundreds a second per broker, turned each offset into text and back on
 * both sides of the transport (issue 16). In this shape the Kafka transport does no conversion: a
 * request's partitions go into Kafka's Fetch body as they are (FollowerFetchPartition is a Kafka
 * FetchPartition), and the answer's bigints are taken from Kafka's as they are. The gRPC
 * transport, a fallback, converts at its edge (grpc-fetch-transport.ts).
 *
 * A follower always reads uncommitted (isolation level 0), so the request has no isolation level.
 */
import type { DivergingEpoch, FetchPartitionAnswer, FetchPartitionAsk } from '../server/fetch-types.js'

/** A partition to fetch: the leader's operation's own (server/fetch-types.ts), field for field Kafka's. */
export type FollowerFetchPartition = FetchPartitionAsk

export interface FollowerFetchTopic {
  readonly topic: string
  /** Not readonly: the Kafka transport hands this very array to Kafka's Fetch body. */
  readonly partitions: FollowerFetchPartition[]
}

export interface FollowerFetchRequest {
  /** Echoed in the answer (the gRPC stream matches answers by it). */
  readonly correlationId: bigint
  /** The follower's broker id. */
  readonly replicaId: number
  /** The follower's broker epoch (the leader fences an older one). */
  readonly replicaEpoch: bigint
  readonly maxWaitMs: number
  readonly minBytes: number
  readonly maxBytes: number
  readonly clientId: string
  readonly topics: FollowerFetchTopic[]
}

/** The leader's report that the follower's log left its history (the operation's own type). */
export type FollowerDivergingEpoch = DivergingEpoch

/**
 * A partition of the leader's answer: the operation's own (server/fetch-types.ts) without the
 * leader epoch, which Kafka's answer carries only with some errors. The log end offset is -1
 * when unknown (Kafka's answer has none), the error message empty on Kafka.
 */
export type FollowerFetchPartitionAnswer = Omit<FetchPartitionAnswer, 'leaderEpoch'>

export interface FollowerFetchTopicAnswer {
  readonly topic: string
  readonly partitions: readonly FollowerFetchPartitionAnswer[]
}

export interface FollowerFetchAnswer {
  /** The request's. */
  readonly correlationId: bigint
  /** An error for the whole fetch (0: none; then each partition has its own). */
  readonly errorCode: number
  readonly errorMessage: string
  readonly topics: readonly FollowerFetchTopicAnswer[]
}
