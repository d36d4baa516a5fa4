/**
 * The follower partitions of this broker, grouped into one ReplicaFetcher per source (leader)
 * broker. A partition is followed from exactly one source at a time; a fetcher exists only while
 * it follows at least one partition (idle brokers hold no streams).
 *
 * Transport (replica-fetch-transport.ts, `replicaFetchTransport`): 'kafka' (the default) fetches
 * from the leader's Kafka listener with Kafka's Fetch; 'grpc' from its gRPC port. A leader that
 * registered no Kafka listener (a broker started without one), or whose Kafka listener does not
 * serve Fetch v15 (an older broker during a rolling upgrade), is fetched from over gRPC, the one
 * transport every broker serves; the latter until that broker registers again (a new broker
 * epoch: it may have been upgraded).
 *
 * Addresses: `replicaConnectOverrides` (broker id -> host:port, e.g. a TCP proxy in the e2e
 * suite) wins over the address the metadata cache advertises for the transport (the Kafka
 * endpoint or the gRPC one); an override names the transport's address of that broker (its Kafka
 * listener under 'kafka'). Both are read afresh at each (re)connection, so a restarted leader on
 * a new port is found again.
 */
import type { Logger } from 'pino'
import type { Clock } from '@sluice/protocol'
import type { MetadataCache } from '../metadata-cache.js'
import type { Partition } from '../partition.js'
import { GrpcFetchConnection } from './grpc-fetch-transport.js'
import { KafkaFetchConnection } from './kafka-fetch-transport.js'
import type { ReplicaEndpoint, ReplicaFetchConnection, ReplicaFetchTransportKind } from './replica-fetch-transport.js'
import { ReplicaFetcher } from './replica-fetcher.js'

export interface ReplicaFetcherManagerOptions {
  readonly brokerId: number
  readonly cache: MetadataCache
  readonly connectOverrides: Readonly<Record<string, string>>
  /** What followers fetch over (default 'kafka'). */
  readonly transport?: ReplicaFetchTransportKind
  readonly brokerEpoch: () => bigint | undefined
  readonly waitMaxMs: number
  readonly minBytes: number
  readonly maxBytesPerPartition: number
  readonly logger: Logger
  /** Handed to every fetcher (default systemClock). */
  readonly clock?: Clock
}

export class ReplicaFetcherManager {
  private readonly fetchers = new Map<number, ReplicaFetcher>()
  private readonly sourceOf = new Map<string, number>()
  private readonly stopping = new Set<Promise<void>>()
  /** Leaders whose Kafka listener refused follower fetches -> their broker epoch then. */
  private readonly kafkaUnsupported = new Map<number, string>()
  private stopped = false

  constructor(private readonly options: ReplicaFetcherManagerOptions) {}

  /** Source broker ids with a running fetcher. @internal visible for testing */
  get sources(): number[] {
    return [...this.fetchers.keys()].sort((a, b) => a - b)
  }

  /** Source broker id -> the transport its fetcher is connected over now. @internal visible for testing */
  get connectedVia(): Record<number, ReplicaFetchTransportKind | undefined> {
    return Object.fromEntries([...this.fetchers].map(([id, f]) => [id, f.connectedVia]))
  }

  /** What this broker's followers fetch over. */
  get transport(): ReplicaFetchTransportKind {
    return this.options.transport ?? 'kafka'
  }

  /** Where and how replication reaches `brokerId`, or undefined when it is unknown. */
  endpointOf(brokerId: number): ReplicaEndpoint | undefined {
    const override = this.options.connectOverrides[String(brokerId)]
    if (this.transport === 'kafka' && !this.kafkaRefusedBy(brokerId)) {
      if (override !== undefined) return { transport: 'kafka', address: override }
      const k = this.options.cache.kafkaEndpoint(brokerId)
      if (k !== undefined) return { transport: 'kafka', address: `${k.host}:${k.port}` }
    } else if (override !== undefined) {
      return { transport: 'grpc', address: override }
    }
    const b = this.options.cache.broker(brokerId)
    return b === undefined ? undefined : { transport: 'grpc', address: `${b.host}:${b.port}` }
  }

  /** True while `brokerId`, in the registration that refused, does not serve follower fetches over Kafka. */
  private kafkaRefusedBy(brokerId: number): boolean {
    const refusedIn = this.kafkaUnsupported.get(brokerId)
    if (refusedIn === undefined) return false
    if (this.options.cache.broker(brokerId)?.brokerEpoch === refusedIn) return true
    this.kafkaUnsupported.delete(brokerId)
    return false
  }

  /** The connector of the fetcher for `leaderId`. */
  private connector(leaderId: number): (e: ReplicaEndpoint) => ReplicaFetchConnection {
    return (e) =>
      e.transport === 'kafka'
        ? new KafkaFetchConnection({
            address: e.address,
            clientId: `replica-fetcher-${this.options.brokerId}`,
            topicIdOf: (topic) => this.options.cache.topicIdOf(topic),
            onUnsupported: () => {
              this.options.logger.warn(
                { source: leaderId },
                'the leader does not serve follower fetches over Kafka (Fetch v15); fetching from it over gRPC',
              )
              this.kafkaUnsupported.set(leaderId, this.options.cache.broker(leaderId)?.brokerEpoch ?? '')
            },
          })
        : new GrpcFetchConnection(e.address)
  }

  /** Fetches `replica` from `leaderId` in `leaderEpoch` (moving it from another source if needed). */
  follow(replica: Partition, leaderId: number, leaderEpoch: number): void {
    if (this.stopped || leaderId < 0 || leaderId === this.options.brokerId) {
      this.unfollow(replica.key)
      return
    }
    const previous = this.sourceOf.get(replica.key)
    if (previous !== undefined && previous !== leaderId) this.unfollow(replica.key)
    let fetcher = this.fetchers.get(leaderId)
    if (fetcher === undefined) {
      fetcher = new ReplicaFetcher({
        brokerId: this.options.brokerId,
        sourceBrokerId: leaderId,
        resolveEndpoint: () => this.endpointOf(leaderId),
        connect: this.connector(leaderId),
        brokerEpoch: this.options.brokerEpoch,
        waitMaxMs: this.options.waitMaxMs,
        minBytes: this.options.minBytes,
        maxBytesPerPartition: this.options.maxBytesPerPartition,
        logger: this.options.logger.child({ source: leaderId }),
        clock: this.options.clock,
      })
      this.fetchers.set(leaderId, fetcher)
    }
    fetcher.add(replica, leaderEpoch)
    this.sourceOf.set(replica.key, leaderId)
  }

  unfollow(key: string): void {
    const source = this.sourceOf.get(key)
    if (source === undefined) return
    this.sourceOf.delete(key)
    const fetcher = this.fetchers.get(source)
    if (fetcher === undefined) return
    fetcher.remove(key)
    if (fetcher.size === 0) {
      this.fetchers.delete(source)
      const p = fetcher.stop().finally(() => this.stopping.delete(p))
      this.stopping.add(p)
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    const all = [...this.fetchers.values()]
    this.fetchers.clear()
    this.sourceOf.clear()
    await Promise.all([...all.map((f) => f.stop()), ...this.stopping])
  }
}
