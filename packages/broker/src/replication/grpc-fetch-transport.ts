/**
 * The gRPC transport of follower fetches (replica-fetch-transport.ts): one long-lived
 * Broker.Fetch bidi stream to the leader's gRPC port, one fetch in flight at a time, its answer
 * matched by correlation id. The stream ending or failing rejects the fetch in flight; the fetcher
 * then closes this connection and opens a new one.
 */
import * as grpc from '@grpc/grpc-js'
import { GRPC_CHANNEL_OPTIONS, loadSluiceProto, type wire } from '@sluice/protocol'
import type { ReplicaFetchConnection } from './replica-fetch-transport.js'

interface Pending {
  readonly id: string
  readonly resolve: (r: wire.FetchResponse__Output) => void
  readonly reject: (e: Error) => void
}

export class GrpcFetchConnection implements ReplicaFetchConnection {
  private readonly client: wire.BrokerClient
  private readonly stream: grpc.ClientDuplexStream<wire.FetchRequest, wire.FetchResponse__Output>
  private pending: Pending | undefined
  private closedBy: Error | undefined

  constructor(address: string) {
    const Broker = loadSluiceProto().sluice.v1.Broker
    this.client = new Broker(address, grpc.credentials.createInsecure(), GRPC_CHANNEL_OPTIONS)
    this.stream = this.client.Fetch()
    this.stream.on('data', (r: wire.FetchResponse__Output) => {
      const p = this.pending
      if (p === undefined || p.id !== String(r.correlation_id)) return
      this.pending = undefined
      p.resolve(r)
    })
    this.stream.on('error', (err: Error) => this.close(err))
    this.stream.on('end', () => this.close(new Error('fetch stream ended by the leader')))
  }

  fetch(request: wire.FetchRequest__Output): Promise<wire.FetchResponse__Output> {
    if (this.closedBy !== undefined) return Promise.reject(this.closedBy)
    return new Promise((resolve, reject) => {
      this.pending = { id: String(request.correlation_id), resolve, reject }
      try {
        this.stream.write(request)
      } catch (err) {
        this.pending = undefined
        reject(err as Error)
      }
    })
  }

  close(reason: Error): void {
    if (this.closedBy !== undefined) return
    this.closedBy = reason
    const p = this.pending
    this.pending = undefined
    p?.reject(reason)
    try {
      this.stream.cancel()
    } catch {
      /* already closed */
    }
    this.client.close()
  }
}
