/**
 * The producer's Produce request and answer as Kafka Produce v9 (the first flexible version, the
 * newest the brokers' Kafka listener serves): the gRPC wire shapes the sender builds and reads,
 * converted field by field, so the sender does not know which transport carried them.
 *
 * What v9 carries: acks and the timeout, a null transactional id (Sluice has no transactions),
 * and per partition the encoded record batch as raw bytes, whose header holds the producer id,
 * epoch and base sequence of an idempotent producer; back, per partition, the error code and
 * message, base offset, log-append time and log start offset, and the throttle time.
 * Kafka's error codes are Sluice's error ids (kafka-error-code.ts in @sluice/protocol), so they
 * pass through unchanged and the sender's SluiceError.fromId reads them as before.
 */
import { kafka, toInt64String, type wire } from '@sluice/protocol'
import type { KafkaMapping } from '../network/kafka-data-channel.js'

export const KAFKA_PRODUCE_VERSION = 9

export const kafkaProduceMapping: KafkaMapping<
  wire.ProduceRequest,
  wire.ProduceResponse__Output,
  kafka.ProduceRequest,
  kafka.ProduceResponse,
  kafka.ProduceRequestInput,
  kafka.ProduceResponseInput
> = {
  codec: kafka.ProduceApi,
  version: KAFKA_PRODUCE_VERSION,
  toKafka: toKafkaProduce,
  fromKafka: fromKafkaProduce,
}

export function toKafkaProduce(req: wire.ProduceRequest): kafka.ProduceRequestInput {
  return {
    transactionalId: null,
    acks: req.acks ?? -1,
    timeoutMs: req.timeout_ms ?? 0,
    topicData: (req.topics ?? []).map((t) => ({
      name: t.topic ?? '',
      partitionData: (t.partitions ?? []).map((p) => ({ index: p.partition ?? 0, records: recordsOf(p.records) })),
    })),
  }
}

export function fromKafkaProduce(res: kafka.ProduceResponse): wire.ProduceResponse__Output {
  return {
    correlation_id: '',
    throttle_time_ms: res.throttleTimeMs,
    topics: res.responses.map((t) => ({
      topic: t.name,
      partitions: t.partitionResponses.map((p) => ({
        partition: p.index,
        error_code: p.errorCode,
        error_message: messageOf(p),
        base_offset: toInt64String(p.baseOffset),
        log_append_time_ms: toInt64String(p.logAppendTimeMs),
        log_start_offset: toInt64String(p.logStartOffset),
      })),
    })),
  }
}

/** Kafka's partition message, or else the first per-batch message (v8+ record errors), or ''. */
function messageOf(p: kafka.ProduceResponsePartitionProduceResponse): string {
  if (p.errorMessage !== null && p.errorMessage !== '') return p.errorMessage
  for (const e of p.recordErrors) if (e.batchIndexErrorMessage !== null) return e.batchIndexErrorMessage
  return ''
}

function recordsOf(records: Buffer | Uint8Array | string | undefined): Buffer {
  if (records === undefined) return Buffer.alloc(0)
  if (typeof records === 'string') return Buffer.from(records, 'base64')
  return Buffer.isBuffer(records) ? records : Buffer.from(records.buffer, records.byteOffset, records.byteLength)
}
