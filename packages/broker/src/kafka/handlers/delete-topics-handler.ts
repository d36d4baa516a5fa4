/**
 * DeleteTopics 1-6, forwarded to the controller. v6 (KIP-516) may name a topic by its id alone:
 * the id is resolved to a name through this broker's metadata cache (an id it does not know is
 * UNKNOWN_TOPIC_ID for that topic), and the answer names both.
 */
import { kafka, type wire } from '@sluice/protocol'
import type { KafkaApiHandler, KafkaRequestContext } from '../kafka-api-handler.js'
import { kafkaErrorCode } from '../kafka-error-code.js'
import { isZeroTopicId, kafkaTopicId } from '../topic-id.js'
import { messageOrNull } from '../wire-values.js'
import { failureOf, toController } from './forwarded-call.js'

/** Kafka's UNKNOWN_TOPIC_ID (not in Sluice's table: Sluice's own APIs name topics). */
const UNKNOWN_TOPIC_ID = 100
const TIMEOUT_MARGIN_MS = 5_000

type Result = kafka.DeleteTopicsResponseDeletableTopicResultInput

function nameOfId(ctx: KafkaRequestContext, id: Buffer): string | undefined {
  if (isZeroTopicId(id)) return undefined
  const cache = ctx.broker.cache
  return cache.topicNames().find((name) => kafkaTopicId(cache.partitionsOf(name)[0]?.topicId).equals(id))
}

function topicIdOf(ctx: KafkaRequestContext, name: string): Buffer {
  return kafkaTopicId(ctx.broker.cache.partitionsOf(name)[0]?.topicId)
}

export const deleteTopicsHandler: KafkaApiHandler<kafka.DeleteTopicsRequest, kafka.DeleteTopicsResponseInput> = {
  codec: kafka.DeleteTopicsApi,
  minVersion: 1,
  maxVersion: 6,
  async handle(req, version, ctx) {
    const results: Result[] = []
    const names: string[] = []
    if (version >= 6) {
      for (const t of req.topics) {
        const name = t.name ?? nameOfId(ctx, t.topicId)
        if (name === undefined)
          results.push({
            name: null,
            topicId: t.topicId,
            errorCode: UNKNOWN_TOPIC_ID,
            errorMessage: 'no topic has this id',
          })
        else names.push(name)
      }
    } else {
      names.push(...req.topicNames)
    }
    if (names.length === 0) return { responses: results }
    // Ids are read before the topics go: afterwards the cache no longer has them.
    const ids = new Map(names.map((n) => [n, topicIdOf(ctx, n)]))
    const grpcReq: wire.DeleteTopicsRequest = { names, timeout_ms: req.timeoutMs }
    try {
      const res = await toController<wire.DeleteTopicsResponse__Output>(
        ctx,
        (c, o, cb) => c.DeleteTopics(grpcReq, o, cb),
        Math.max(0, req.timeoutMs) + TIMEOUT_MARGIN_MS,
      )
      for (const r of res.topics)
        results.push({
          name: r.name,
          topicId: ids.get(r.name),
          errorCode: kafkaErrorCode(r.error_code),
          errorMessage: messageOrNull(r.error_message),
        })
    } catch (err) {
      const f = failureOf(ctx, err, 'NOT_CONTROLLER')
      for (const name of names) results.push({ name, topicId: ids.get(name), ...f })
    }
    return { responses: results }
  },
}
