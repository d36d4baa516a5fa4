/**
 * The client's view of the cluster: live brokers, where the metadata service is, and for every
 * topic the client has asked about its partitions' leader, leader epoch, replicas and ISR.
 *
 * Invariants:
 * - The cache is only replaced by whole Metadata responses from a broker, never patched.
 * - Refreshes are coalesced (one in flight at a time) and at least `metadataMinRefreshMs` apart,
 *   so a storm of NOT_LEADER errors costs one request, not one per partition.
 * - Only topics someone asked for are requested ("tracked"); an empty tracked set asks for all.
 */
import { SluiceError, systemClock, type Clock, type wire } from '@sluice/protocol'
import type { Logger } from '../logger.js'
import type { ResolvedConnectOptions } from '../options.js'
import { withRetry } from '../retry.js'
import type { ConnectionPool } from './connection-pool.js'
import { callUnary } from './unary.js'

export interface BrokerNode {
  brokerId: number
  host: string
  port: number
  rack: string
  endpoint: string
  /** The broker's advertised Kafka listener; undefined when it has none (kafka_port 0). */
  kafkaEndpoint: { host: string; port: number } | undefined
}

export interface PartitionInfo {
  partition: number
  /** -1 while the partition has no leader. */
  leader: number
  leaderEpoch: number
  replicas: number[]
  isr: number[]
  offlineReplicas: number[]
  errorCode: number
}

export interface TopicInfo {
  name: string
  topicId: string
  isInternal: boolean
  /** Indexed by partition number. */
  partitions: PartitionInfo[]
}

export class MetadataCache {
  readonly brokers = new Map<number, BrokerNode>()
  readonly topics = new Map<string, TopicInfo>()
  private readonly topicErrors = new Map<string, SluiceError>()
  private readonly tracked = new Set<string>()
  metadataEndpoints: string[] = []
  clusterId = ''
  controllerId = -1
  private metadataEndpointIndex = 0
  private lastRefreshMs = 0
  private inFlight: Promise<void> | undefined
  private readonly log: Logger

  /** `clock` spaces the refreshes (metadataMinRefreshMs); the client passes none (systemClock). */
  constructor(
    private readonly pool: ConnectionPool,
    private readonly options: ResolvedConnectOptions,
    private readonly clock: Clock = systemClock,
  ) {
    this.log = options.logger.child({ component: 'metadata-cache' })
  }

  /** Fetches fresh metadata (coalesced with any refresh in flight, rate limited). */
  async refresh(): Promise<void> {
    if (this.inFlight !== undefined) return await this.inFlight
    this.inFlight = (async () => {
      try {
        const wait = this.lastRefreshMs + this.options.metadataMinRefreshMs - this.clock.nowMs()
        if (wait > 0) await this.clock.sleep(wait)
        await this.fetchOnce()
      } finally {
        this.lastRefreshMs = this.clock.nowMs()
        this.inFlight = undefined
      }
    })()
    return await this.inFlight
  }

  /** Asks for a refresh without waiting for it; failures are logged, the next caller retries. */
  requestRefresh(): void {
    this.refresh().catch((err: unknown) => {
      this.log.debug({ err }, 'background metadata refresh failed')
    })
  }

  /**
   * The topic's metadata, refreshing (with the client's retry policy) until it is known and every
   * partition is listed. UNKNOWN_TOPIC_OR_PARTITION is retriable, so an unknown topic fails only
   * once the retries or `deadlineMs` run out.
   */
  async topic(
    name: string,
    options: { signal?: AbortSignal; deadlineMs?: number; fresh?: boolean } = {},
  ): Promise<TopicInfo> {
    return (await this.topicsOf([name], options))[0]!
  }

  /**
   * The metadata of several topics, in the order asked, with ONE refresh for all the unknown ones
   * (then retried like topic()). Asking topic() for each in turn would cost a refresh per unknown
   * topic, each at least metadataMinRefreshMs after the last: 50 fresh topics took 5 s.
   */
  async topicsOf(
    names: readonly string[],
    options: { signal?: AbortSignal; deadlineMs?: number; fresh?: boolean } = {},
  ): Promise<TopicInfo[]> {
    // Tracked before the refresh starts, so its one request names every topic.
    for (const name of names) this.tracked.add(name)
    let fresh = options.fresh ?? false
    return await withRetry(
      async () => {
        if (fresh || names.some((n) => !this.topics.has(n))) {
          fresh = false
          await this.refresh()
        }
        return names.map((name) => {
          const t = this.topics.get(name)
          if (t !== undefined) return t
          throw (
            this.topicErrors.get(name) ??
            new SluiceError('UNKNOWN_TOPIC_OR_PARTITION', `topic ${name} does not exist`, { topic: name })
          )
        })
      },
      {
        retry: this.options.retry,
        signal: options.signal,
        deadlineMs: options.deadlineMs,
        operation:
          names.length === 1
            ? `metadata for topic ${names[0]!}`
            : `metadata for ${names.length} topics (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', ...' : ''})`,
        clock: this.clock,
      },
    )
  }

  /** The leader's broker node, or undefined when unknown or offline (then a refresh is useful). */
  leaderOf(topic: string, partition: number): BrokerNode | undefined {
    const p = this.topics.get(topic)?.partitions[partition]
    if (p === undefined || p.leader < 0) return undefined
    return this.brokers.get(p.leader)
  }

  partitionInfo(topic: string, partition: number): PartitionInfo | undefined {
    return this.topics.get(topic)?.partitions[partition]
  }

  /**
   * Runs `call` on the metadata-service instances, starting with the one that answered last and
   * moving on to the next after each failure whose code is in `moveOn` (a standby answering
   * NOT_CONTROLLER, a dead or unreachable instance). Any other outcome is returned or thrown at
   * once; only when every instance failed does the last error come out, so one attempt of the
   * caller's retry loop covers a whole round, and a controller failover does not use up retries.
   */
  async onMetadataService<T>(moveOn: ReadonlySet<string>, call: (endpoint: string) => Promise<T>): Promise<T> {
    if (this.metadataEndpoints.length === 0) await this.refresh()
    const n = this.metadataEndpoints.length
    if (n === 0) throw new SluiceError('METADATA_UNAVAILABLE', 'no broker reported a metadata-service endpoint')
    let last: unknown
    for (let i = 0; i < n; i++) {
      const endpoint = this.metadataEndpoints[this.metadataEndpointIndex % this.metadataEndpoints.length]!
      try {
        return await call(endpoint)
      } catch (err) {
        if (!(err instanceof SluiceError && moveOn.has(err.code))) throw err
        last = err
        this.metadataEndpointIndex++
      }
    }
    throw last
  }

  private candidates(): string[] {
    const known = [...this.brokers.values()].map((b) => b.endpoint)
    // Start at a random known broker so clients spread their metadata load.
    const start = known.length > 0 ? Math.floor(Math.random() * known.length) : 0
    const rotated = [...known.slice(start), ...known.slice(0, start)]
    return [...new Set([...rotated, ...this.options.bootstrap])]
  }

  private async fetchOnce(): Promise<void> {
    let lastErr: unknown
    for (const endpoint of this.candidates()) {
      try {
        const client = this.pool.brokerClient(endpoint)
        const topics = [...this.tracked]
        const req: wire.MetadataRequest = { topics, include_internal: true }
        const res = await callUnary<wire.MetadataResponse__Output>(
          (opts, cb) => client.Metadata(req, opts, cb),
          this.options.requestTimeoutMs,
        )
        this.apply(res)
        // Lets an application (and the tests) see how often metadata is fetched, and for what.
        this.log.debug({ endpoint, topics: topics.length }, 'metadata refreshed')
        return
      } catch (err) {
        if (err instanceof SluiceError && err.code === 'CLIENT_CLOSED') throw err
        this.log.debug({ err, endpoint }, 'metadata request failed, trying the next broker')
        lastErr = err
      }
    }
    throw lastErr instanceof SluiceError && lastErr.retriable
      ? lastErr
      : new SluiceError('NETWORK_EXCEPTION', 'no broker answered a metadata request', {}, { cause: lastErr })
  }

  private apply(res: wire.MetadataResponse__Output): void {
    this.clusterId = res.cluster_id
    this.controllerId = res.controller_id
    if (res.metadata_endpoints.length > 0) this.metadataEndpoints = [...res.metadata_endpoints]
    this.brokers.clear()
    for (const b of res.brokers) {
      this.brokers.set(b.broker_id, {
        brokerId: b.broker_id,
        host: b.host,
        port: b.port,
        rack: b.rack,
        endpoint: `${b.host}:${b.port}`,
        kafkaEndpoint: b.kafka_port > 0 && b.kafka_host !== '' ? { host: b.kafka_host, port: b.kafka_port } : undefined,
      })
    }
    for (const t of res.topics) {
      if (t.error_code !== 0) {
        this.topics.delete(t.name)
        this.topicErrors.set(t.name, SluiceError.fromId(t.error_code, t.error_message, { topic: t.name }))
        continue
      }
      const partitions: PartitionInfo[] = []
      for (const p of t.partitions) {
        partitions[p.partition] = {
          partition: p.partition,
          leader: p.leader,
          leaderEpoch: p.leader_epoch,
          replicas: p.replicas,
          isr: p.isr,
          offlineReplicas: p.offline_replicas,
          errorCode: p.error_code,
        }
      }
      // A response missing some partition is an inconsistent view: treat as not yet available.
      if (partitions.length === 0 || Array.from(partitions).includes(undefined as unknown as PartitionInfo)) {
        this.topics.delete(t.name)
        this.topicErrors.set(
          t.name,
          new SluiceError('LEADER_NOT_AVAILABLE', `topic ${t.name} has no complete partition list yet`, {
            topic: t.name,
          }),
        )
        continue
      }
      this.topicErrors.delete(t.name)
      this.topics.set(t.name, { name: t.name, topicId: t.topic_id, isInternal: t.is_internal, partitions })
    }
  }
}
