/**
 * Kafka Produce v3-9 over the broker's produce operation (server/produce-handler.ts). The decoded
 * request is the operation's ask as it is (produce-types.ts uses Kafka's field names); the
 * answer's error ids become Kafka codes. Acks, batch validation, idempotent sequences and the
 * refusal of transactional requests are the operation's; acks=0 answers nothing, as in Kafka.
 */
import { kafka } from '@sluice/protocol'
import { handleProduce, produceFailure } from '../../server/produce-handler.js'
import type { ProduceAnswer } from '../../server/produce-types.js'
import type { KafkaApiHandler } from '../kafka-api-handler.js'
import { kafkaErrorCode } from '../kafka-error-code.js'
import { messageOrNull } from '../wire-values.js'

export const produceHandler: KafkaApiHandler<kafka.ProduceRequest, kafka.ProduceResponseInput> = {
  codec: kafka.ProduceApi,
  minVersion: 3,
  maxVersion: 9,
  async handle(req, _version, ctx) {
    let res: ProduceAnswer | undefined
    try {
      res = await handleProduce(ctx.broker, req)
    } catch (err) {
      res = produceFailure(req, err)
    }
    return res === undefined ? undefined : toKafkaProduce(res)
  },
}

function toKafkaProduce(res: ProduceAnswer): kafka.ProduceResponseInput {
  const responses: kafka.ProduceResponseTopicProduceResponseInput[] = new Array(res.topics.length)
  for (let i = 0; i < res.topics.length; i++) {
    const t = res.topics[i]!
    const partitionResponses: kafka.ProduceResponsePartitionProduceResponseInput[] = new Array(t.partitions.length)
    for (let j = 0; j < t.partitions.length; j++) {
      const p = t.partitions[j]!
      partitionResponses[j] = {
        index: p.partition,
        errorCode: kafkaErrorCode(p.errorCode),
        errorMessage: messageOrNull(p.errorMessage),
        baseOffset: p.baseOffset,
        logAppendTimeMs: p.logAppendTimeMs,
        logStartOffset: p.logStartOffset,
      }
    }
    responses[i] = { name: t.topic, partitionResponses }
  }
  return { throttleTimeMs: 0, responses }
}
