/**
 * The gRPC transport of follower fetches (replica-fetch-transport.ts): one long-lived
 * Broker.Fetch bidi stream to the leader's gRPC port, one fetch in flight at a time, its answer
 * matched by correlation id. The stream ending or failing rejects the fetch in flight; the fetcher
 * then closes this connection and opens a new one.
 *
 * The fetcher speaks bigint offsets (follower-fetch-types.ts), the proto's int64s are decimal
 * strings: this edge converts both ways. It is the fallback transport (the Kafka one converts
 * nothing), so the conversion stays here rather than on every fetch.
 */
import * as grpc from '@grpc/grpc-js'
import { GRPC_CHANNEL_OPTIONS, loadSluiceProto, toBigInt, toInt64String, type wire } from '@sluice/protocol'
import type {
  FollowerFetchAnswer,
  FollowerFetchPartitionAnswer,
  FollowerFetchRequest,
  FollowerFetchTopicAnswer,
} from './follower-fetch-types.js'
import type { ReplicaFetchConnection } from './replica-fetch-transport.js'

interface Pending {
  readonly id: string
  readonly resolve: (r: FollowerFetchAnswer) => void
  readonly reject: (e: Error) => void
}

/** A follower reads everything up to the leader's log end, transactional or not. */
const READ_UNCOMMITTED = 0

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
      p.resolve(fromWireFetch(r))
    })
    this.stream.on('error', (err: Error) => this.close(err))
    this.stream.on('end', () => this.close(new Error('fetch stream ended by the leader')))
  }

  fetch(request: FollowerFetchRequest): Promise<FollowerFetchAnswer> {
    if (this.closedBy !== undefined) return Promise.reject(this.closedBy)
    const message = toWireFetch(request)
    return new Promise((resolve, reject) => {
      this.pending = { id: message.correlation_id, resolve, reject }
      try {
        this.stream.write(message)
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

/** The request as the gRPC Fetch carries it. */
export function toWireFetch(req: FollowerFetchRequest): wire.FetchRequest__Output {
  const topics: wire.TopicFetchData__Output[] = []
  for (const t of req.topics) {
    const partitions: wire.PartitionFetchData__Output[] = []
    for (const p of t.partitions) {
      partitions.push({
        partition: p.partition,
        fetch_offset: toInt64String(p.fetchOffset),
        current_leader_epoch: p.currentLeaderEpoch,
        partition_max_bytes: p.partitionMaxBytes,
        last_fetched_epoch: p.lastFetchedEpoch,
        log_start_offset: toInt64String(p.logStartOffset),
      })
    }
    topics.push({ topic: t.topic, partitions })
  }
  return {
    correlation_id: toInt64String(req.correlationId),
    replica_id: req.replicaId,
    replica_epoch: toInt64String(req.replicaEpoch),
    max_wait_ms: req.maxWaitMs,
    min_bytes: req.minBytes,
    max_bytes: req.maxBytes,
    isolation_level: READ_UNCOMMITTED,
    topics,
    client_id: req.clientId,
  }
}

/** The gRPC Fetch answer in the fetcher's shape. */
export function fromWireFetch(res: wire.FetchResponse__Output): FollowerFetchAnswer {
  const topics: FollowerFetchTopicAnswer[] = []
  for (const t of res.topics) {
    const partitions: FollowerFetchPartitionAnswer[] = []
    for (const p of t.partitions) {
      const d = p.diverging_epoch
      partitions.push({
        partition: p.partition,
        errorCode: p.error_code,
        errorMessage: p.error_message,
        highWatermark: toBigInt(p.high_watermark),
        logStartOffset: toBigInt(p.log_start_offset),
        logEndOffset: toBigInt(p.log_end_offset),
        records: p.records,
        divergingEpoch: d == null ? undefined : { epoch: d.epoch, endOffset: toBigInt(d.end_offset) },
      })
    }
    topics.push({ topic: t.topic, partitions })
  }
  return {
    correlationId: toBigInt(res.correlation_id),
    errorCode: res.error_code,
    errorMessage: res.error_message,
    topics,
  }
}
