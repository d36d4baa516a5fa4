/**
 * One gRPC client (one HTTP/2 channel) per endpoint, shared by everything a SluiceClient creates:
 * producers and consumers open their own streams, but over the same channel per broker. Clients
 * are created lazily and closed together.
 */
import * as grpc from '@grpc/grpc-js'
import { GRPC_CHANNEL_OPTIONS, SluiceError, loadSluiceProto, type wire } from '@sluice/protocol'

export class ConnectionPool {
  private readonly brokers = new Map<string, wire.BrokerClient>()
  private readonly metadata = new Map<string, wire.MetadataClient>()
  private readonly groups = new Map<string, wire.GroupCoordinatorClient>()
  private closed = false

  brokerClient(endpoint: string): wire.BrokerClient {
    this.assertOpen()
    let c = this.brokers.get(endpoint)
    if (c === undefined) {
      const { Broker } = loadSluiceProto().sluice.v1
      c = new Broker(endpoint, grpc.credentials.createInsecure(), GRPC_CHANNEL_OPTIONS)
      this.brokers.set(endpoint, c)
    }
    return c
  }

  metadataClient(endpoint: string): wire.MetadataClient {
    this.assertOpen()
    let c = this.metadata.get(endpoint)
    if (c === undefined) {
      const { Metadata } = loadSluiceProto().sluice.v1
      c = new Metadata(endpoint, grpc.credentials.createInsecure(), GRPC_CHANNEL_OPTIONS)
      this.metadata.set(endpoint, c)
    }
    return c
  }

  /** The GroupCoordinator service, served by the metadata service (same endpoints). */
  groupClient(endpoint: string): wire.GroupCoordinatorClient {
    this.assertOpen()
    let c = this.groups.get(endpoint)
    if (c === undefined) {
      const { GroupCoordinator } = loadSluiceProto().sluice.v1
      c = new GroupCoordinator(endpoint, grpc.credentials.createInsecure(), GRPC_CHANNEL_OPTIONS)
      this.groups.set(endpoint, c)
    }
    return c
  }

  close(): void {
    this.closed = true
    for (const c of this.brokers.values()) c.close()
    for (const c of this.metadata.values()) c.close()
    for (const c of this.groups.values()) c.close()
    this.brokers.clear()
    this.metadata.clear()
    this.groups.clear()
  }

  private assertOpen(): void {
    if (this.closed) throw new SluiceError('CLIENT_CLOSED', 'the client is closed')
  }
}
