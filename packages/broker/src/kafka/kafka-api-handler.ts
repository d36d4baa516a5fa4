/**
 * The contract between the Kafka listener and the per-API handlers: the listener owns the bytes
 * (framing, headers, decoding with the handler's codec, answering in order); a handler gets a
 * decoded request and returns the answer to encode, as a thin adapter over the broker operations
 * the gRPC handlers use.
 */
import type { kafka } from '@sluice/protocol'
import type { BrokerContext } from '../server/context.js'

export interface KafkaApiHandler<Req, Res> {
  readonly codec: kafka.KafkaApiCodec<Req, unknown, unknown, Res>
  readonly minVersion: number
  readonly maxVersion: number
  /** undefined = no response (Produce with acks=0) */
  handle(req: Req, version: number, ctx: KafkaRequestContext): Promise<Res | undefined>
}

export interface KafkaRequestContext {
  readonly broker: BrokerContext
  /** This broker's advertised Kafka endpoint. */
  readonly listener: { readonly brokerId: number; readonly host: string; readonly port: number }
  readonly header: kafka.KafkaRequestHeader
  readonly connectionId: string
  readonly clientId: string | null
  /** Aborted when the connection closes or the broker stops. */
  readonly signal: AbortSignal
  metadataEndpoints(): readonly string[]
}
