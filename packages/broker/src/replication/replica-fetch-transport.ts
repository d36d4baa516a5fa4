/**
 * What a replica fetcher sends its fetches over (docs/decisions.md, "Followers fetch over the
 * Kafka protocol"). The fetcher's loop (what to ask for, how to apply the answer, backoffs,
 * truncation, the response-timeout guard) is one piece of logic; under it, one connection to the
 * leader carries one fetch at a time, in one of two ways:
 * - 'kafka': Kafka's own Fetch (v15, which carries the follower's broker epoch in ReplicaState)
 *   over a framed TCP connection to the leader's Kafka listener (kafka-fetch-transport.ts);
 * - 'grpc': Sluice's Broker.Fetch bidi stream to the leader's gRPC port (grpc-fetch-transport.ts).
 * Both take the request and hand back the answer in the same shape (follower-fetch-types.ts:
 * Kafka's field names, offsets as bigints), so the Kafka transport converts no offset and the
 * gRPC transport converts to and from its wire types at its edge. The leader serves both with the
 * same fetch operation (server/fetch-handler.ts).
 */
import type { FollowerFetchAnswer, FollowerFetchRequest } from './follower-fetch-types.js'

export type ReplicaFetchTransportKind = 'kafka' | 'grpc'

export const REPLICA_FETCH_TRANSPORTS: readonly ReplicaFetchTransportKind[] = ['kafka', 'grpc']

/** Where and how to reach a leader for replication. */
export interface ReplicaEndpoint {
  readonly transport: ReplicaFetchTransportKind
  /** host:port of the leader's Kafka listener or gRPC server (or of a proxy in front of it). */
  readonly address: string
}

/** One open (or opening) connection to a leader that carries follower fetches. */
export interface ReplicaFetchConnection {
  /**
   * Sends one follower fetch and resolves with its answer; rejects when the connection fails or
   * closes before the answer (the fetcher then closes it and reconnects after a backoff).
   */
  fetch(request: FollowerFetchRequest): Promise<FollowerFetchAnswer>
  /** Closes the connection; a fetch in flight rejects with `reason`. Idempotent. */
  close(reason: Error): void
}

/** Opens a connection to `endpoint` (lazily: failures surface from the first fetch). */
export type ReplicaFetchConnector = (endpoint: ReplicaEndpoint) => ReplicaFetchConnection

export function endpointKey(e: ReplicaEndpoint): string {
  return `${e.transport}:${e.address}`
}
