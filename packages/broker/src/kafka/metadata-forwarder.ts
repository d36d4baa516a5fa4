/**
 * The Kafka listener's one way to the metadata service: the Kafka APIs that Sluice answers there
 * (group membership and offsets on the GroupCoordinator service, topic and config administration
 * and producer ids on the Metadata service) are forwarded one-to-one as gRPC calls.
 *
 * - One forwarder per broker (forwarderFor), shared by every connection: a gRPC client per
 *   metadata endpoint stays open, so a heartbeat costs one HTTP/2 stream, not a connection.
 * - Only the active controller serves these services; standbys answer NOT_CONTROLLER /
 *   NOT_COORDINATOR and a dead instance fails with UNAVAILABLE. On those the call moves on to the
 *   next endpoint, for one round over the endpoints the broker currently knows, starting with the
 *   one that answered last. A Kafka client retries the error the handler answers with, so the
 *   forwarder does not wait and retry by itself.
 * - Every call has a deadline; long polls (JoinGroup, SyncGroup) pass their own. The call is
 *   cancelled when the Kafka connection closes (the request context's signal).
 */
import * as grpc from '@grpc/grpc-js'
import type { Logger } from 'pino'
import { GRPC_CHANNEL_OPTIONS, SluiceError, fromGrpcError, loadSluiceProto, type wire } from '@sluice/protocol'
import type { BrokerContext } from '../server/context.js'

/** A deadline for calls that do not wait for anything (Kafka's request.timeout.ms is 30 s). */
export const DEFAULT_FORWARD_TIMEOUT_MS = 15_000

/** What a long poll may take beyond its own timeout: the trip and the coordinator's sweep. */
export const LONG_POLL_MARGIN_MS = 5_000

/** Errors after which another metadata-service instance may do better. */
const MOVE_ON = new Set(['NOT_CONTROLLER', 'NOT_COORDINATOR', 'NETWORK_EXCEPTION', 'METADATA_UNAVAILABLE'])

export type Invoker<C, Res> = (
  client: C,
  options: grpc.CallOptions,
  callback: grpc.requestCallback<Res>,
) => grpc.ClientUnaryCall

export interface ForwardOptions {
  readonly timeoutMs?: number
  readonly signal?: AbortSignal
  /** The endpoints to try (a request context's metadataEndpoints()); default: the broker's. */
  readonly endpoints?: readonly string[]
}

interface EndpointClients {
  readonly group: wire.GroupCoordinatorClient
  readonly metadata: wire.MetadataClient
}

export interface MetadataForwarderOptions {
  /** The metadata-service endpoints as currently known, read afresh for every call. */
  readonly endpoints: () => readonly string[]
  readonly logger: Logger
}

export class MetadataForwarder {
  private readonly clients = new Map<string, EndpointClients>()
  /** The endpoint that answered last: the active controller, most likely. */
  private preferred: string | undefined
  private closed = false

  constructor(private readonly options: MetadataForwarderOptions) {}

  /** A call on the GroupCoordinator service. */
  group<Res>(invoke: Invoker<wire.GroupCoordinatorClient, Res>, options: ForwardOptions = {}): Promise<Res> {
    return this.forward((c) => c.group, invoke, options)
  }

  /** A call on the Metadata service. */
  metadata<Res>(invoke: Invoker<wire.MetadataClient, Res>, options: ForwardOptions = {}): Promise<Res> {
    return this.forward((c) => c.metadata, invoke, options)
  }

  close(): void {
    this.closed = true
    for (const c of this.clients.values()) {
      c.group.close()
      c.metadata.close()
    }
    this.clients.clear()
  }

  private async forward<C, Res>(
    pick: (c: EndpointClients) => C,
    invoke: Invoker<C, Res>,
    options: ForwardOptions,
  ): Promise<Res> {
    const endpoints = this.order(options.endpoints ?? this.options.endpoints())
    if (endpoints.length === 0) throw new SluiceError('METADATA_UNAVAILABLE', 'no metadata-service endpoint is known')
    // One deadline for the whole round: moving on must not stretch the call past what was asked.
    const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS)
    let last: SluiceError | undefined
    for (const endpoint of endpoints) {
      if (this.closed) throw new SluiceError('BROKER_NOT_AVAILABLE', 'the broker is stopping')
      try {
        const res = await this.once(pick(this.clientsOf(endpoint)), invoke, deadline, options.signal)
        this.preferred = endpoint
        return res
      } catch (e) {
        const err = fromGrpcError(e)
        if (!MOVE_ON.has(err.code) || options.signal?.aborted === true) throw err
        this.options.logger.debug(
          { endpoint, error: err.code, message: err.message },
          'moving to the next metadata endpoint',
        )
        last = err
        if (Date.now() >= deadline) break
      }
    }
    throw last ?? new SluiceError('REQUEST_TIMED_OUT', 'no metadata endpoint answered in time')
  }

  /** The known endpoints, the last one that answered first. */
  private order(endpoints: readonly string[]): string[] {
    const known = [...new Set(endpoints)]
    const i = this.preferred === undefined ? -1 : known.indexOf(this.preferred)
    return i <= 0 ? known : [...known.slice(i), ...known.slice(0, i)]
  }

  private clientsOf(endpoint: string): EndpointClients {
    let c = this.clients.get(endpoint)
    if (c === undefined) {
      const proto = loadSluiceProto().sluice.v1
      const credentials = grpc.credentials.createInsecure()
      c = {
        group: new proto.GroupCoordinator(endpoint, credentials, GRPC_CHANNEL_OPTIONS),
        metadata: new proto.Metadata(endpoint, credentials, GRPC_CHANNEL_OPTIONS),
      }
      this.clients.set(endpoint, c)
    }
    return c
  }

  private once<C, Res>(client: C, invoke: Invoker<C, Res>, deadline: number, signal?: AbortSignal): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(new SluiceError('NETWORK_EXCEPTION', 'the Kafka connection closed'))
        return
      }
      const onAbort = (): void => call.cancel()
      const call = invoke(client, { deadline }, (err, res) => {
        signal?.removeEventListener('abort', onAbort)
        if (err !== null) reject(fromGrpcError(err))
        else if (res === undefined)
          reject(new SluiceError('UNKNOWN_SERVER_ERROR', 'empty answer from the metadata service'))
        else resolve(res)
      })
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }
}

const forwarders = new WeakMap<BrokerContext, MetadataForwarder>()

/**
 * The broker's forwarder, created on first use. The endpoints come from the broker's metadata
 * cache (the configured list plus what the controller announces), so every listener of the
 * broker shares one set of channels.
 */
export function forwarderFor(broker: BrokerContext): MetadataForwarder {
  let f = forwarders.get(broker)
  if (f === undefined) {
    f = new MetadataForwarder({
      endpoints: () => broker.cache.metadataEndpoints,
      logger: broker.logger.child({ component: 'kafka-forwarder' }),
    })
    forwarders.set(broker, f)
  }
  return f
}

/** Closes the broker's forwarder (its channels), if it has one: for the broker's stop. */
export function closeForwarder(broker: BrokerContext): void {
  forwarders.get(broker)?.close()
  forwarders.delete(broker)
}
