/**
 * The follower partitions of this broker, grouped into one ReplicaFetcher per source (leader)
 * broker. A partition is followed from exactly one source at a time; a fetcher exists only while
 * it follows at least one partition (idle brokers hold no streams).
 *
 * Addresses: `replicaConnectOverrides` (broker id -> host:port, e.g. a TCP proxy in the e2e
 * suite) wins over the advertised address from the metadata cache; both are read afresh at each
 * (re)connection, so a restarted leader on a new port is found again.
 */
import type { Logger } from 'pino'
import type { Clock } from '@sluice/protocol'
import type { MetadataCache } from '../metadata-cache.js'
import type { Partition } from '../partition.js'
import { ReplicaFetcher } from './replica-fetcher.js'

export interface ReplicaFetcherManagerOptions {
  readonly brokerId: number
  readonly cache: MetadataCache
  readonly connectOverrides: Readonly<Record<string, string>>
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
  private stopped = false

  constructor(private readonly options: ReplicaFetcherManagerOptions) {}

  /** Source broker ids with a running fetcher. @internal visible for testing */
  get sources(): number[] {
    return [...this.fetchers.keys()].sort((a, b) => a - b)
  }

  /** The address replication dials for `brokerId`, or undefined when it is unknown. */
  endpointOf(brokerId: number): string | undefined {
    const override = this.options.connectOverrides[String(brokerId)]
    if (override !== undefined) return override
    const b = this.options.cache.broker(brokerId)
    return b === undefined ? undefined : `${b.host}:${b.port}`
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
