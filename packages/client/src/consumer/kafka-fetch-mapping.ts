/**
 * The consumer's Fetch request and answer as Kafka Fetch v12 (the first flexible version, and the
 * newest that names topics rather than topic ids): the gRPC wire shapes the fetcher builds and
 * reads, converted field by field, so the fetcher does not know which transport carried them.
 *
 * What v12 carries: the long poll (maxWaitMs, minBytes), the size limits (maxBytes and each
 * partition's partitionMaxBytes), the isolation level, and per partition the fetch offset, the
 * current leader epoch (fencing; -1 = not checked), the last fetched epoch and the log start
 * offset; no fetch session (session id 0, epoch -1: a full fetch every time) and no rack. Back:
 * the request-level error and throttle time, and per partition the error code, high watermark,
 * last stable offset, log start offset, diverging epoch, current leader and the raw record
 * batches.
 * Two gaps against the gRPC answer, both harmless to the fetcher:
 * - Kafka's Fetch has no error message: the fetcher words its own (offset out of range) or uses
 *   the error's default text.
 * - Kafka's Fetch has no log end offset: the high watermark stands in for it, the end of what a
 *   consumer may read, which is what the fetcher reports with OFFSET_OUT_OF_RANGE.
 * Kafka's error codes are Sluice's error ids (kafka-error-code.ts in @sluice/protocol), so they
 * pass through unchanged.
 */
import { int64FromWire, kafka, type wire } from '@sluice/protocol'
import type { KafkaMapping } from '../network/kafka-data-channel.js'

export const KAFKA_FETCH_VERSION = 12

/** A full fetch, outside any fetch session (KIP-227). */
const NO_SESSION = { sessionId: 0, sessionEpoch: -1 } as const

export const kafkaFetchMapping: KafkaMapping<
  wire.FetchRequest,
  wire.FetchResponse__Output,
  kafka.FetchRequest,
  kafka.FetchResponse,
  kafka.FetchRequestInput,
  kafka.FetchResponseInput
> = {
  codec: kafka.FetchApi,
  version: KAFKA_FETCH_VERSION,
  toKafka: toKafkaFetch,
  fromKafka: fromKafkaFetch,
}

export function toKafkaFetch(req: wire.FetchRequest): kafka.FetchRequestInput {
  return {
    clusterId: null,
    replicaId: req.replica_id ?? -1,
    maxWaitMs: req.max_wait_ms ?? 0,
    minBytes: req.min_bytes ?? 0,
    maxBytes: req.max_bytes ?? 0x7fffffff,
    isolationLevel: req.isolation_level ?? 0,
    ...NO_SESSION,
    topics: (req.topics ?? []).map((t) => ({
      topic: t.topic ?? '',
      partitions: (t.partitions ?? []).map((p) => ({
        partition: p.partition ?? 0,
        currentLeaderEpoch: p.current_leader_epoch ?? -1,
        fetchOffset: int64FromWire(p.fetch_offset, 0n),
        lastFetchedEpoch: p.last_fetched_epoch ?? -1,
        logStartOffset: int64FromWire(p.log_start_offset, -1n),
        partitionMaxBytes: p.partition_max_bytes ?? 0,
      })),
    })),
    forgottenTopicsData: [],
    rackId: '',
  }
}

export function fromKafkaFetch(res: kafka.FetchResponse): wire.FetchResponse__Output {
  return {
    correlation_id: '',
    error_code: res.errorCode,
    error_message: '',
    throttle_time_ms: res.throttleTimeMs,
    topics: res.responses.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => kafka.wireFetchPartition(p, 'high-watermark')),
    })),
  }
}
