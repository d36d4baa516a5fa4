/**
 * The gRPC edge of the produce operation (proto/sluice/v1/broker.proto ProduceRequest ->
 * ProduceResponse): the proto's fields become the operation's ask on the way in, and its bigint
 * offsets decimal strings on the way out (produce-types.ts says why the operation has its own
 * types).
 */
import { toInt64String, type wire } from '@sluice/protocol'
import type { BrokerContext } from './context.js'
import { handleProduce, produceFailure } from './produce-handler.js'
import type { ProduceAnswer, ProduceAsk } from './produce-types.js'

/** Serves one gRPC Produce; undefined for acks=0. */
export function handleWireProduce(
  ctx: BrokerContext,
  req: wire.ProduceRequest__Output,
): Promise<wire.ProduceResponse | undefined> {
  return handleProduce(ctx, produceAskFromWire(req)).then((answer) =>
    answer === undefined ? undefined : produceAnswerToWire(req.correlation_id, answer),
  )
}

/** A whole-request failure as the gRPC answer (undefined for acks=0). */
export function wireProduceFailure(req: wire.ProduceRequest__Output, err: unknown): wire.ProduceResponse | undefined {
  const answer = produceFailure(produceAskFromWire(req), err)
  return answer === undefined ? undefined : produceAnswerToWire(req.correlation_id, answer)
}

export function produceAskFromWire(req: wire.ProduceRequest__Output): ProduceAsk {
  return {
    acks: req.acks,
    timeoutMs: req.timeout_ms,
    transactionalId: req.transactional_id === '' ? null : req.transactional_id,
    topicData: req.topics.map((t) => ({
      name: t.topic,
      partitionData: t.partitions.map((p) => ({ index: p.partition, records: p.records })),
    })),
  }
}

export function produceAnswerToWire(correlationId: string, a: ProduceAnswer): wire.ProduceResponse {
  return {
    correlation_id: correlationId,
    throttle_time_ms: 0,
    topics: a.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => ({
        partition: p.partition,
        error_code: p.errorCode,
        error_message: p.errorMessage,
        base_offset: toInt64String(p.baseOffset),
        log_append_time_ms: toInt64String(p.logAppendTimeMs),
        log_start_offset: toInt64String(p.logStartOffset),
      })),
    })),
  }
}
