/**
 * The consumer's network side. One loop, woken by subscription changes, responses and timers:
 * 1. partitions with a pending seek ('beginning' / 'end' / timestamp) are resolved with
 *    ListOffsets;
 * 2. fetchable partitions (position known, not paused or stopped, no fetch in flight) are
 *    grouped by leader, and each leader without a fetch in flight gets one long-poll Fetch
 *    request carrying all of them, on a data channel per broker (one request in flight per
 *    broker; network/data-channel.ts: Kafka Fetch on a TCP connection to the broker's Kafka
 *    listener, or a gRPC bidi Fetch stream; network/data-route.ts picks).
 * Prefetch: a partition is fetched again as soon as its previous answer arrived, while the
 * application still works through what is buffered, so long polls overlap with processing.
 * Memory is bounded by `maxBufferedBytes`: the bytes buffered (fetched, not yet delivered) plus
 * the max_bytes of every fetch in flight never exceed it, except that a fetch always returns at
 * least one whole batch (KIP-74), so one batch may go over. Data of paused partitions is not
 * counted (it waits for resume() and must not starve the others). Buffered data stays raw
 * record batches until delivered (fetched-records.ts).
 * Answers are applied only if the partition's generation is unchanged (no seek in between).
 * Records below the fetch offset are dropped at delivery (a response starts with the whole batch
 * containing it), control batches are skipped, and the fetch offset moves past the last batch
 * returned.
 * NOT_LEADER and other stale-metadata errors refresh metadata and retry after a backoff (the
 * next fetch goes to the new leader); OFFSET_OUT_OF_RANGE follows `offsetReset`.
 */
import { SluiceError, toBigInt, toInt64String, traceHop, traceOn, type wire } from '@sluice/protocol'
import type { Logger } from '../logger.js'
import type { ConnectionPool } from '../network/connection-pool.js'
import type { DataChannel } from '../network/data-channel.js'
import { dataRoute } from '../network/data-route.js'
import { KafkaDataChannel } from '../network/kafka-data-channel.js'
import type { MetadataCache } from '../network/metadata-cache.js'
import { RequestStream } from '../network/request-stream.js'
import { DEFAULT_DATA_TRANSPORT, type DataTransport, type RetryOptions } from '../options.js'
import { fetchedBytes, scanFetched, type ScanResult } from './fetched-records.js'
import { kafkaFetchMapping } from './kafka-fetch-mapping.js'
import { listOffsets, seekTimestamp } from './list-offsets.js'
import type { PartitionState, SubscriptionState } from './subscription.js'

export interface FetcherOptions {
  maxWaitMs: number
  minBytes: number
  maxBytes: number
  maxPartitionBytes: number
  /** Bound of fetched-but-undelivered bytes plus in-flight fetch sizes (see the header). */
  maxBufferedBytes: number
  isolationLevel: number
  offsetReset: 'earliest' | 'latest' | 'none'
  requestTimeoutMs: number
  clientId: string
  retry: RetryOptions
  /** What Fetch travels over (ConnectOptions.dataTransport; default DEFAULT_DATA_TRANSPORT). */
  dataTransport?: DataTransport
}

type FetchStream = DataChannel<wire.FetchRequest, wire.FetchResponse__Output>
interface Sent {
  s: PartitionState
  generation: number
  offset: bigint
}

export class Fetcher {
  private readonly streams = new Map<number, { key: string; transport: DataTransport; stream: FetchStream }>()
  private readonly busy = new Set<number>()
  /** max_bytes of the fetch in flight per broker: counted against maxBufferedBytes. */
  private readonly reserved = new Map<number, number>()
  private rotation = 0
  private stopped = false
  private running: Promise<void> | undefined

  constructor(
    private readonly subs: SubscriptionState,
    private readonly cache: MetadataCache,
    private readonly pool: ConnectionPool,
    private readonly options: FetcherOptions,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.running ??= this.loop().catch((err: unknown) => {
      this.log.error({ err }, 'fetch loop failed')
    })
  }

  async stop(): Promise<void> {
    this.stopped = true
    for (const { stream } of this.streams.values()) stream.close()
    this.streams.clear()
    this.subs.notify()
    await this.running
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const now = Date.now()
      const a = this.resolveResets(now)
      const b = this.dispatch(now)
      await this.subs.changed(Math.min(a, b))
    }
  }

  /** Starts ListOffsets for pending seeks; returns ms until a backed-off one may be retried. */
  private resolveResets(now: number): number {
    let wakeMs = 1000
    const todo: Array<{ s: PartitionState; generation: number; timestamp: bigint }> = []
    for (const s of this.subs.partitions.values()) {
      if (s.pendingReset === undefined || s.resetting) continue
      if (s.retryAtMs > now) {
        wakeMs = Math.min(wakeMs, s.retryAtMs - now)
        continue
      }
      s.resetting = true
      todo.push({ s, generation: s.generation, timestamp: seekTimestamp(s.pendingReset) })
    }
    if (todo.length === 0) return wakeMs
    listOffsets(
      this.cache,
      this.pool,
      todo.map(({ s, timestamp }) => ({ topic: s.topic, partition: s.partition, timestamp })),
      { isolationLevel: this.options.isolationLevel, timeoutMs: this.options.requestTimeoutMs },
    )
      .then((answers) => {
        for (const { s, generation } of todo) {
          s.resetting = false
          if (s.generation !== generation || this.subs.partitions.get(s.key) !== s) continue
          const a = answers.get(s.key)!
          if (a instanceof SluiceError) {
            this.onPartitionError(s, a)
          } else if (a.offset < 0n) {
            // no record at or after the timestamp: go to the end
            s.pendingReset = 'end'
          } else {
            if (typeof s.pendingReset === 'object') s.skipBeforeTimestamp = BigInt(s.pendingReset.timestamp)
            s.pendingReset = undefined
            s.fetchOffset = a.offset
            s.position = a.offset
          }
        }
      })
      .catch((err: unknown) => {
        for (const { s } of todo) s.resetting = false
        this.log.error({ err }, 'resolving seek positions failed')
      })
      .finally(() => {
        this.subs.notify()
      })
    return wakeMs
  }

  /** @internal tests: what the Fetch channel to each broker it has talked to travels over. */
  transports(): Map<number, DataTransport> {
    return new Map([...this.streams].map(([id, e]) => [id, e.transport]))
  }

  /** @internal tests: bytes buffered (fetched, not delivered) and reserved by fetches in flight. */
  bufferedBytes(): { buffered: number; reserved: number } {
    let buffered = 0
    for (const s of this.subs.partitions.values()) buffered += fetchedBytes(s)
    let reserved = 0
    for (const r of this.reserved.values()) reserved += r
    return { buffered, reserved }
  }

  /** Sends a fetch to every idle leader; returns ms until a backed-off partition may be fetched. */
  private dispatch(now: number): number {
    let wakeMs = 1000
    const byBroker = new Map<number, PartitionState[]>()
    let used = 0
    for (const r of this.reserved.values()) used += r
    const leaders = new Set<number>(this.busy)
    for (const s of this.subs.partitions.values()) {
      // A paused partition's data waits for resume(); counting it could starve every other one.
      if (!s.paused) used += fetchedBytes(s)
      if (
        s.fetching ||
        s.paused ||
        s.stopped ||
        s.error !== undefined ||
        s.fetchOffset === undefined ||
        s.buffered.length > 0
      )
        continue
      if (s.retryAtMs > now) {
        wakeMs = Math.min(wakeMs, s.retryAtMs - now)
        continue
      }
      const leader = this.cache.leaderOf(s.topic, s.partition)
      if (leader === undefined) {
        this.onPartitionError(
          s,
          new SluiceError('LEADER_NOT_AVAILABLE', `no known leader for ${s.topic}/${s.partition}`),
        )
        continue
      }
      leaders.add(leader.brokerId)
      if (this.busy.has(leader.brokerId)) continue
      const list = byBroker.get(leader.brokerId) ?? []
      list.push(s)
      byBroker.set(leader.brokerId, list)
    }
    // Each leader's fetch may reserve an equal share, so one broker's long poll cannot hold the
    // whole budget while partitions on other brokers wait.
    const share = Math.max(1, Math.floor(this.options.maxBufferedBytes / Math.max(1, leaders.size)))
    for (const [brokerId, list] of byBroker) {
      // With nothing buffered the budget is >= 1 byte, and a fetch returns at least one batch:
      // a budget below one batch still makes progress.
      const budget = Math.min(this.options.maxBytes, share, this.options.maxBufferedBytes - used)
      if (budget <= 0) break // the application's turn; taking data notifies the loop
      used += budget
      this.fetch(brokerId, list, budget)
    }
    return wakeMs
  }

  private fetch(brokerId: number, parts: PartitionState[], maxBytes: number): void {
    const entry = this.streamFor(brokerId)
    this.busy.add(brokerId)
    this.reserved.set(brokerId, maxBytes)
    // The broker fills partitions in request order: rotate, so a tight budget is shared.
    const start = this.rotation++ % parts.length
    const sent: Sent[] = []
    for (let i = 0; i < parts.length; i++) {
      const s = parts[(start + i) % parts.length]!
      sent.push({ s, generation: s.generation, offset: s.fetchOffset! })
    }
    const partitionMaxBytes = Math.min(this.options.maxPartitionBytes, maxBytes)
    const topics = new Map<string, wire.PartitionFetchData[]>()
    for (const { s, offset } of sent) {
      s.fetching = true
      const l = topics.get(s.topic) ?? []
      l.push({
        partition: s.partition,
        fetch_offset: toInt64String(offset),
        current_leader_epoch: -1,
        partition_max_bytes: partitionMaxBytes,
        last_fetched_epoch: -1,
        log_start_offset: '-1',
      })
      topics.set(s.topic, l)
    }
    const req: wire.FetchRequest = {
      replica_id: -1,
      max_wait_ms: this.options.maxWaitMs,
      min_bytes: this.options.minBytes,
      max_bytes: maxBytes,
      isolation_level: this.options.isolationLevel,
      client_id: this.options.clientId,
      topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
    }
    entry.stream
      .request(req, { timeoutMs: this.options.maxWaitMs + this.options.requestTimeoutMs })
      .then(
        (res) => {
          this.onResponse(sent, res!)
        },
        (err: unknown) => {
          if (this.stopped) return
          const e =
            err instanceof SluiceError ? err : new SluiceError('NETWORK_EXCEPTION', String(err), {}, { cause: err })
          for (const x of sent) if (this.current(x)) this.onPartitionError(x.s, e)
        },
      )
      .catch((err: unknown) => {
        this.log.error({ err }, 'fetch response handling failed')
      })
      .finally(() => {
        this.busy.delete(brokerId)
        this.reserved.delete(brokerId)
        for (const { s } of sent) s.fetching = false
        this.subs.notify()
      })
  }

  /** The broker's fetch channel (one request in flight), replaced when its route changed. */
  private streamFor(brokerId: number): { key: string; transport: DataTransport; stream: FetchStream } {
    const node = this.cache.brokers.get(brokerId)!
    const route = dataRoute(node, this.options.dataTransport ?? DEFAULT_DATA_TRANSPORT)
    const existing = this.streams.get(brokerId)
    if (existing !== undefined && existing.key === route.key) return existing
    // The broker moved (or its Kafka listener did): a fetch still in flight there is retried.
    existing?.stream.close(
      new SluiceError('NETWORK_EXCEPTION', `broker ${brokerId}'s address changed; the connection was replaced`),
    )
    const name = `fetch from broker ${brokerId}`
    let stream: FetchStream
    if (route.transport === 'kafka') {
      stream = new KafkaDataChannel(kafkaFetchMapping, {
        host: route.host,
        port: route.port,
        clientId: this.options.clientId,
        maxInFlight: 1,
        name,
        connectTimeoutMs: this.options.requestTimeoutMs,
      })
    } else {
      const client = this.pool.brokerClient(route.endpoint)
      stream = new RequestStream(() => client.Fetch(), 1, name)
    }
    const entry = { key: route.key, transport: route.transport, stream }
    this.streams.set(brokerId, entry)
    return entry
  }

  private current(x: Sent): boolean {
    return x.s.generation === x.generation && this.subs.partitions.get(x.s.key) === x.s
  }

  private onResponse(sent: Sent[], res: wire.FetchResponse__Output): void {
    if (res.error_code !== 0) {
      const e = SluiceError.fromId(res.error_code, res.error_message)
      for (const x of sent) if (this.current(x)) this.onPartitionError(x.s, e)
      return
    }
    const byKey = new Map<string, wire.PartitionFetchResponse__Output>()
    for (const t of res.topics) for (const p of t.partitions) byKey.set(`${t.topic}\u0000${p.partition}`, p)
    for (const x of sent) {
      const p = byKey.get(x.s.key)
      if (p === undefined || !this.current(x)) continue
      this.onPartition(x.s, x.offset, p)
    }
  }

  private onPartition(s: PartitionState, offset: bigint, p: wire.PartitionFetchResponse__Output): void {
    if (p.error_code !== 0) {
      const details = {
        topic: s.topic,
        partition: s.partition,
        offset,
        logStartOffset: toBigInt(p.log_start_offset),
        logEndOffset: toBigInt(p.log_end_offset),
      }
      const e = SluiceError.fromId(
        p.error_code,
        p.error_code === 1
          ? `offset ${offset} is out of range for ${s.topic}/${s.partition} (log start ${details.logStartOffset}, log end ${details.logEndOffset})`
          : p.error_message,
        details,
      )
      this.onPartitionError(s, e)
      return
    }
    s.highWatermark = toBigInt(p.high_watermark)
    s.retryAtMs = 0
    let scan: ScanResult
    try {
      scan = scanFetched(p.records)
    } catch (err) {
      this.onPartitionError(
        s,
        err instanceof SluiceError
          ? err
          : new SluiceError('CORRUPT_MESSAGE', String(err), { topic: s.topic, partition: s.partition }),
      )
      return
    }
    if (scan.nextOffset === undefined) {
      if (p.records.length > 0) {
        this.log.warn(
          { topic: s.topic, partition: s.partition, maxPartitionBytes: this.options.maxPartitionBytes },
          'fetch returned only a partial batch; raise maxPartitionBytes',
        )
      }
      return
    }
    if (traceOn) traceHop('consumer-response-received', -1, s.topic, s.partition, offset, scan.nextOffset)
    s.fetched.push({
      records: p.records.subarray(0, scan.completeBytes),
      batches: scan.batches,
      taken: 0,
      fromOffset: offset,
      highWatermark: s.highWatermark,
    })
    if (scan.nextOffset > offset) s.fetchOffset = scan.nextOffset
  }

  private onPartitionError(s: PartitionState, e: SluiceError): void {
    if (e.code === 'OFFSET_OUT_OF_RANGE' && this.options.offsetReset !== 'none') {
      this.log.warn(
        { topic: s.topic, partition: s.partition, offsetReset: this.options.offsetReset },
        'offset out of range, resetting',
      )
      this.subs.seek(s, this.options.offsetReset === 'earliest' ? 'beginning' : 'end')
      return
    }
    if (e.retriable) {
      if (e.staleMetadata)
        this.cache.refresh().then(
          () => {
            this.subs.notify()
          },
          () => {},
        )
      s.retryAtMs = Date.now() + this.options.retry.initialBackoffMs
      return
    }
    s.error = e
    s.stopped = true
  }
}
