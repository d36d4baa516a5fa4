/**
 * Kafka DeleteRecords v0-2 over the broker's delete-records operation
 * (server/metadata-handler.ts): the leader check, the offset range (-1 = the high watermark), the
 * wait for the in-sync followers and the timeout are the operation's.
 */
import { kafka, type wire } from '@sluice/protocol'
import { handleDeleteRecords } from '../../server/metadata-handler.js'
import type { KafkaApiHandler } from '../kafka-api-handler.js'
import { kafkaErrorCode } from '../kafka-error-code.js'
import { int64FromWire, int64ToWire } from '../wire-values.js'

export const deleteRecordsHandler: KafkaApiHandler<kafka.DeleteRecordsRequest, kafka.DeleteRecordsResponseInput> = {
  codec: kafka.DeleteRecordsApi,
  minVersion: 0,
  maxVersion: 2,
  async handle(req, _version, ctx) {
    const res = await handleDeleteRecords(ctx.broker, toWireDeleteRecords(req))
    return { throttleTimeMs: 0, topics: toKafkaTopics(res) }
  },
}

function toWireDeleteRecords(req: kafka.DeleteRecordsRequest): wire.DeleteRecordsRequest__Output {
  return {
    timeout_ms: req.timeoutMs,
    topics: req.topics.map((t) => ({
      topic: t.name,
      partitions: t.partitions.map((p) => ({ partition: p.partitionIndex, offset: int64ToWire(p.offset) })),
    })),
  }
}

function toKafkaTopics(res: wire.DeleteRecordsResponse): kafka.DeleteRecordsResponseDeleteRecordsTopicResultInput[] {
  return (res.topics ?? []).map((t) => ({
    name: t.topic ?? '',
    partitions: (t.partitions ?? []).map((p) => ({
      partitionIndex: p.partition ?? 0,
      lowWatermark: int64FromWire(p.low_watermark),
      errorCode: kafkaErrorCode(p.error_code),
    })),
  }))
}
