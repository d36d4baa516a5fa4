/**
 * The broker's Prometheus metrics (docs/metrics.md lists every series). They exist only when the
 * broker runs an admin server (`adminPort`); without one, the request paths skip them through
 * `ctx.metrics?.`.
 *
 * Two kinds of series:
 * - Counters bumped on the request paths: cells (server-kit cell-metrics.ts) found by topic or
 *   error code in a map, so a produce or fetch costs map lookups and number adds, never label
 *   objects or hashing. Records are counted from batch headers (recordCount), never by decoding
 *   records.
 * - Gauges computed on scrape by collect() callbacks from state the broker already keeps (hosted
 *   replicas, their ISR and logs): no timer and no bookkeeping per partition between scrapes.
 */
import { Counter, Gauge, type Registry } from 'prom-client'
import {
  BATCH_HEADER_BYTES,
  LOG_OVERHEAD_BYTES,
  OFF_BATCH_LENGTH,
  OFF_RECORD_COUNT,
  errorNameFromId,
  type BatchSpan,
} from '@sluice/protocol'
import { CellCounter, RpcMetrics, childCache, createMetricsRegistry } from '@sluice/server-kit'
import type { FetchAnswer } from '../server/fetch-types.js'
import type { ProduceTopicAnswer } from '../server/produce-types.js'

/** What the scrape-time gauges read: the broker's hosted replicas and its metadata view. */
export interface BrokerMetricsSources {
  readonly replicas: () => Iterable<HostedReplica>
  readonly minInsyncReplicas: (topic: string) => number
  readonly brokerEpoch: () => bigint | undefined
  readonly hasLease: () => boolean
}

/** The parts of a Partition (partition.ts) the gauges read. */
export interface HostedReplica {
  readonly topic: string
  readonly partition: number
  readonly isLeader: boolean
  readonly replicas: readonly number[]
  readonly isr: readonly number[]
  readonly highWatermark: bigint
  readonly logEndOffset: bigint
  readonly logStartOffset: bigint
  readonly log: { readonly sizeBytes: number; readonly segmentList: readonly unknown[] }
}

interface Inc {
  inc(n?: number): void
}

export class BrokerMetrics {
  readonly registry: Registry
  readonly rpc: RpcMetrics
  private readonly bytesIn
  private readonly recordsIn
  private readonly bytesOut
  private readonly recordsOut
  private readonly produceErrors
  private readonly fetchErrors
  private readonly isrShrinks: Counter
  private readonly isrExpands: Counter

  constructor(sources: BrokerMetricsSources, registry: Registry = createMetricsRegistry()) {
    this.registry = registry
    this.rpc = new RpcMetrics(registry)
    const registers = [registry]
    const perTopic = (name: string, help: string): { get(topic: string): Inc } => {
      const c = new CellCounter({ name, help, labelNames: ['topic'], registers })
      return { get: (topic) => c.cell(topic) }
    }
    this.bytesIn = perTopic(
      'sluice_topic_bytes_in_total',
      'Record-batch bytes appended by producers (as leader), per topic.',
    )
    this.recordsIn = perTopic(
      'sluice_topic_records_in_total',
      'Records appended by producers (as leader), per topic; counted from batch headers.',
    )
    this.bytesOut = perTopic(
      'sluice_topic_bytes_out_total',
      'Record-batch bytes sent to consumers in Fetch answers, per topic (replication excluded).',
    )
    this.recordsOut = perTopic(
      'sluice_topic_records_out_total',
      'Records sent to consumers in Fetch answers, per topic; counted from batch headers.',
    )
    const perCode = (name: string, help: string): { get(id: number): Inc } => {
      const c = new CellCounter({ name, help, labelNames: ['code'], registers })
      const cache = childCache((id) => c.cell(errorNameFromId(Number(id))))
      return { get: (id) => cache.get(String(id)) }
    }
    this.produceErrors = perCode(
      'sluice_produce_errors_total',
      'Partitions answered with an error in Produce, per error code.',
    )
    this.fetchErrors = perCode(
      'sluice_fetch_errors_total',
      'Partitions (or whole requests) answered with an error in Fetch, consumer and follower fetches, per error code.',
    )
    this.isrShrinks = new Counter({
      name: 'sluice_isr_shrinks_total',
      help: 'ISR shrinks this broker proposed as leader (a follower fell behind).',
      registers,
    })
    this.isrExpands = new Counter({
      name: 'sluice_isr_expands_total',
      help: 'ISR expansions this broker proposed as leader (a follower caught up).',
      registers,
    })
    registerScrapeGauges(registry, sources)
  }

  /** A leader append of `spans` (the batches of one partition's produce data) succeeded. */
  produced(topic: string, bytes: number, spans: readonly BatchSpan[]): void {
    let records = 0
    for (const s of spans) records += s.recordCount
    this.bytesIn.get(topic).inc(bytes)
    this.recordsIn.get(topic).inc(records)
  }

  /** Per-partition errors of a Produce answer (acks=0 included: called before dropping it). */
  produceAnswered(topics: readonly ProduceTopicAnswer[]): void {
    for (const t of topics) {
      for (const p of t.partitions) if (p.errorCode !== 0) this.produceErrors.get(p.errorCode).inc()
    }
  }

  /** A Fetch answer about to be sent: per-topic traffic to consumers and errors per code. */
  fetchAnswered(fromFollower: boolean, res: FetchAnswer): void {
    if (res.errorCode !== 0) this.fetchErrors.get(res.errorCode).inc()
    for (const t of res.topics) {
      let bytes = 0
      let records = 0
      for (const p of t.partitions) {
        if (p.errorCode !== 0) {
          this.fetchErrors.get(p.errorCode).inc()
          continue
        }
        if (fromFollower || p.records.length === 0) continue
        bytes += p.records.length
        records += countRecords(p.records)
      }
      if (bytes > 0) {
        this.bytesOut.get(t.topic).inc(bytes)
        this.recordsOut.get(t.topic).inc(records)
      }
    }
  }

  /** Replica events (partition.ts `onEvent`): the ISR proposals are counted. */
  partitionEvent(event: string): void {
    if (event === ISR_SHRINK_EVENT) this.isrShrinks.inc()
    else if (event === ISR_EXPAND_EVENT) this.isrExpands.inc()
  }
}

/** The event names partition.ts emits when a leader proposes an ISR change. */
export const ISR_SHRINK_EVENT = 'shrinking the ISR'
export const ISR_EXPAND_EVENT = 'expanding the ISR'

/**
 * Records in whole batches back to back (a Fetch answer's records field), from each header's
 * recordCount; a truncated trailing batch is not counted.
 */
export function countRecords(buf: Buffer): number {
  let records = 0
  let pos = 0
  while (pos + BATCH_HEADER_BYTES <= buf.length) {
    const size = LOG_OVERHEAD_BYTES + buf.readInt32BE(pos + OFF_BATCH_LENGTH)
    if (size < BATCH_HEADER_BYTES || pos + size > buf.length) break
    records += buf.readInt32BE(pos + OFF_RECORD_COUNT)
    pos += size
  }
  return records
}

function registerScrapeGauges(registry: Registry, sources: BrokerMetricsSources): void {
  const registers = [registry]
  new Gauge({
    name: 'sluice_partitions',
    help: 'Partition replicas hosted by this broker, by role (leader or follower).',
    labelNames: ['role'],
    registers,
    collect() {
      let leaders = 0
      let followers = 0
      for (const r of sources.replicas()) {
        if (r.isLeader) leaders++
        else followers++
      }
      this.set({ role: 'leader' }, leaders)
      this.set({ role: 'follower' }, followers)
    },
  })
  new Gauge({
    name: 'sluice_under_replicated_partitions',
    help: 'Partitions this broker leads whose ISR is smaller than their replica list.',
    registers,
    collect() {
      let n = 0
      for (const r of sources.replicas()) if (r.isLeader && r.isr.length < r.replicas.length) n++
      this.set(n)
    },
  })
  new Gauge({
    name: 'sluice_under_min_isr_partitions',
    help: 'Partitions this broker leads whose ISR is smaller than min.insync.replicas (acks=all produces fail).',
    registers,
    collect() {
      let n = 0
      for (const r of sources.replicas()) if (r.isLeader && r.isr.length < sources.minInsyncReplicas(r.topic)) n++
      this.set(n)
    },
  })
  perPartitionGauge(
    registry,
    'sluice_log_size_bytes',
    'Bytes in the segments of each hosted partition replica.',
    sources,
    () => true,
    (r) => r.log.sizeBytes,
  )
  perPartitionGauge(
    registry,
    'sluice_log_segments',
    'Segments (the active one included) of each hosted partition replica.',
    sources,
    () => true,
    (r) => r.log.segmentList.length,
  )
  perPartitionGauge(
    registry,
    'sluice_partition_high_watermark',
    'High watermark of each partition this broker leads (the log end consumers see).',
    sources,
    (r) => r.isLeader,
    (r) => Number(r.highWatermark),
  )
  perPartitionGauge(
    registry,
    'sluice_partition_log_start_offset',
    'Log start offset of each partition this broker leads.',
    sources,
    (r) => r.isLeader,
    (r) => Number(r.logStartOffset),
  )
  new Gauge({
    name: 'sluice_broker_registered',
    help: '1 while this broker holds a live metadata-service lease (registered, snapshot applied, heartbeats acknowledged), else 0.',
    registers,
    collect() {
      this.set(sources.hasLease() ? 1 : 0)
    },
  })
  new Gauge({
    name: 'sluice_broker_epoch',
    help: 'The broker epoch of the current metadata session (-1 while not registered).',
    registers,
    collect() {
      this.set(Number(sources.brokerEpoch() ?? -1n))
    },
  })
}

function perPartitionGauge(
  registry: Registry,
  name: string,
  help: string,
  sources: BrokerMetricsSources,
  include: (r: HostedReplica) => boolean,
  value: (r: HostedReplica) => number,
): void {
  new Gauge({
    name,
    help,
    labelNames: ['topic', 'partition'],
    registers: [registry],
    collect() {
      // Reset first: a partition that moved away or was deleted must drop out of the scrape.
      this.reset()
      for (const r of sources.replicas())
        if (include(r)) this.set({ topic: r.topic, partition: String(r.partition) }, value(r))
    },
  })
}
