/**
 * The contract between the Kafka listener and the per-API handlers. The listener owns the bytes
 * (framing, headers, decoding with the handler's codec, ordering the answers); a handler gets a
 * decoded request and returns the decoded answer, as a thin adapter over the broker operations
 * the gRPC handlers use (docs/design.md §9). Handlers are listed in kafka-handlers.ts.
 */
import type { kafka } from '@sluice/protocol'
import type { BrokerContext } from '../server/context.js'
import type { KafkaApiCodec } from './codec-stand-in.js'

/** One API and the versions this listener answers (what ApiVersions lists). */
export interface KafkaApiVersionRange {
  readonly apiKey: number
  readonly minVersion: number
  readonly maxVersion: number
}

/** This broker's Kafka listener as clients see it. */
export interface KafkaListenerInfo {
  readonly brokerId: number
  /** The advertised host and port: what a Kafka Metadata answer names for this broker. */
  readonly host: string
  readonly port: number
  /** Every API the listener answers, by api key ascending (the ApiVersions list). */
  readonly apis: readonly KafkaApiVersionRange[]
}

/** What a handler knows about the request it serves, beyond the decoded body. */
export interface KafkaRequestContext {
  /** The broker's shared state: metadata cache, replicas, purgatory, logger, metrics. */
  readonly broker: BrokerContext
  readonly listener: KafkaListenerInfo
  /** The decoded request header (api key, version, correlation id, client id, tagged fields). */
  readonly header: kafka.KafkaRequestHeader
  /** Unique per connection for the broker's lifetime (local and remote address, and a counter). */
  readonly connectionId: string
  /** The header's client id; '' when the client sent none (null). */
  readonly clientId: string
  /**
   * Aborted when the connection closes or the broker stops: a handler that waits (a fetch long
   * poll, acks=all, a forwarded group call) gives up then, since nobody will read its answer.
   */
  readonly signal: AbortSignal
  /** The metadata service's endpoints as currently known, for APIs forwarded to it over gRPC. */
  metadataEndpoints(): readonly string[]
}

export interface KafkaApiHandler<Req, Res> {
  /** The generated codec of the API: its key, name, schema versions and encoders. */
  readonly codec: KafkaApiCodec<Req, Res>
  /**
   * The versions this handler answers; the listener intersects them with the codec's range.
   * A request outside them closes the connection (ApiVersions answers UNSUPPORTED_VERSION).
   */
  readonly minVersion: number
  readonly maxVersion: number
  /**
   * Serves one request. Resolves to the answer, or undefined for a request Kafka does not answer
   * (Produce with acks=0). Per-item errors belong in the answer's error codes; a throw is a bug
   * or a broken invariant, and the listener logs it and closes the connection.
   */
  handle(req: Req, version: number, ctx: KafkaRequestContext): Promise<Res | undefined>
}
