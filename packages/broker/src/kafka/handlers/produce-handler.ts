/**
 * Kafka Produce v3-9 over the broker's produce operation (server/produce-handler.ts): the request
 * becomes the gRPC wire request and the operation's answer is turned back, error ids mapped to
 * Kafka codes. Acks, batch validation, idempotent sequences and the refusal of transactional
 * requests are the operation's; acks=0 answers nothing, as in Kafka.
 */
import { kafka, type wire } from '@sluice/protocol'
import { handleProduce, produceErrorResponse } from '../../server/produce-handler.js'
import type { KafkaApiHandler, KafkaRequestContext } from '../kafka-api-handler.js'
import { kafkaErrorCode } from '../kafka-error-code.js'
import { bufferFromWire, int64FromWire, messageOrNull } from '../wire-values.js'

export const produceHandler: KafkaApiHandler<kafka.ProduceRequest, kafka.ProduceResponseInput> = {
  codec: kafka.ProduceApi,
  minVersion: 3,
  maxVersion: 9,
  async handle(req, _version, ctx) {
    const wireReq = toWireProduce(req, ctx)
    let res: wire.ProduceResponse | undefined
    try {
      res = await handleProduce(ctx.broker, wireReq)
    } catch (err) {
      res = produceErrorResponse(wireReq, err)
    }
    return res === undefined ? undefined : toKafkaProduce(res)
  },
}

function toWireProduce(req: kafka.ProduceRequest, ctx: KafkaRequestContext): wire.ProduceRequest__Output {
  return {
    correlation_id: String(ctx.header.correlationId),
    acks: req.acks,
    timeout_ms: req.timeoutMs,
    client_id: ctx.clientId ?? '',
    transactional_id: req.transactionalId ?? '',
    topics: req.topicData.map((t) => ({
      topic: t.name,
      partitions: t.partitionData.map((p) => ({ partition: p.index, records: bufferFromWire(p.records ?? undefined) })),
    })),
  }
}

function toKafkaProduce(res: wire.ProduceResponse): kafka.ProduceResponseInput {
  return {
    throttleTimeMs: res.throttle_time_ms ?? 0,
    responses: (res.topics ?? []).map((t) => ({
      name: t.topic ?? '',
      partitionResponses: (t.partitions ?? []).map((p) => ({
        index: p.partition ?? 0,
        errorCode: kafkaErrorCode(p.error_code),
        errorMessage: messageOrNull(p.error_message),
        baseOffset: int64FromWire(p.base_offset),
        logAppendTimeMs: int64FromWire(p.log_append_time_ms),
        logStartOffset: int64FromWire(p.log_start_offset),
      })),
    })),
  }
}
