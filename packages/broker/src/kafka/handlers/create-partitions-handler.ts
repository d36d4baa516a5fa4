/**
 * CreatePartitions 0-3, forwarded to the controller. Kafka lists the replicas of each new
 * partition in order; Sluice's request numbers them, so explicit assignments need the topic's
 * current partition count, read from the controller first.
 */
import { kafka, type wire } from '@sluice/protocol'
import type { KafkaApiHandler } from '../kafka-api-handler.js'
import { kafkaErrorCode } from '../kafka-error-code.js'
import { messageOrNull } from '../wire-values.js'
import { describeTopics } from './config-entries.js'
import { failureOf, toController } from './forwarded-call.js'

const TIMEOUT_MARGIN_MS = 5_000

export const createPartitionsHandler: KafkaApiHandler<
  kafka.CreatePartitionsRequest,
  kafka.CreatePartitionsResponseInput
> = {
  codec: kafka.CreatePartitionsApi,
  minVersion: 0,
  maxVersion: 3,
  async handle(req, _version, ctx) {
    try {
      const withAssignments = req.topics.filter((t) => t.assignments !== null && t.assignments.length > 0)
      const current = await describeTopics(
        ctx,
        withAssignments.map((t) => t.name),
      )
      const grpcReq: wire.CreatePartitionsRequest = {
        topics: req.topics.map((t) => {
          // A topic the controller does not know gets no numbering; the controller refuses it.
          const first = current.get(t.name)?.partitions.length ?? 0
          return {
            name: t.name,
            count: t.count,
            assignments: (t.assignments ?? []).map((a, i) => ({ partition: first + i, replicas: a.brokerIds })),
          }
        }),
        validate_only: req.validateOnly,
        timeout_ms: req.timeoutMs,
      }
      const res = await toController<wire.CreatePartitionsResponse__Output>(
        ctx,
        (c, o, cb) => c.CreatePartitions(grpcReq, o, cb),
        Math.max(0, req.timeoutMs) + TIMEOUT_MARGIN_MS,
      )
      return {
        throttleTimeMs: 0,
        results: res.topics.map((r) => ({
          name: r.name,
          errorCode: kafkaErrorCode(r.error_code),
          errorMessage: messageOrNull(r.error_message),
        })),
      }
    } catch (err) {
      const f = failureOf(ctx, err, 'NOT_CONTROLLER')
      return { throttleTimeMs: 0, results: req.topics.map((t) => ({ name: t.name, ...f })) }
    }
  },
}
