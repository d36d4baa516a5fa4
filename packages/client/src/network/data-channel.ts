/**
 * The transport under the producer's sender and the consumer's fetcher: one long-lived channel
 * to one broker carrying correlated requests of one kind (Produce or Fetch), at most a fixed
 * number in flight. Requests and answers are the gRPC wire shapes (broker.proto) whichever
 * transport carries them, so nothing above the channel knows which one it is.
 *
 * Two adapters: RequestStream (request-stream.ts, a grpc-js bidi stream) and KafkaDataChannel
 * (kafka-data-channel.ts, Kafka's own protocol on a plain TCP connection to the broker's Kafka
 * listener). Both fail every request in flight with a typed, retriable SluiceError when the
 * connection breaks or a request times out, and open a fresh connection for the next request;
 * after close() requests fail with CLIENT_CLOSED.
 */
import type { SluiceError } from '@sluice/protocol'
import type { RequestOptions } from './request-stream.js'

export interface DataChannel<Req, Res> {
  /** Requests sent or waiting for a slot, not yet settled. */
  readonly inFlight: number
  readonly hasFreeSlot: boolean
  /** Sends one request (waiting for a free slot first) and resolves with its answer. */
  request(req: Req, options: RequestOptions): Promise<Res | undefined>
  /**
   * Fails everything outstanding and releases the connection. Requests in flight fail with
   * `reason` where the adapter can say it (the Kafka one; a channel replaced because the broker's
   * address changed passes a retriable error), else with CLIENT_CLOSED; later ones with CLIENT_CLOSED.
   */
  close(reason?: SluiceError): void
}
