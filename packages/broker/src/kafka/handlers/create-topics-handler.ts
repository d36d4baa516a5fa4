/**
 * CreateTopics 2-7, forwarded to the controller. -1 partitions or replication factor take the
 * cluster's defaults (v4+, KIP-464); explicit assignments, configs and validateOnly pass through
 * and the controller validates them (the same rules as the SDK's createTopics). From v5 on
 * (KIP-525) a created topic's answer carries its partition count, replication factor and every
 * effective config, read back from the controller; v7 adds the topic id.
 */
import { errorId, kafka, type wire } from '@sluice/protocol'
import type { KafkaApiHandler, KafkaRequestContext } from '../kafka-api-handler.js'
import { kafkaErrorCode } from '../kafka-error-code.js'
import { kafkaTopicId } from '../topic-id.js'
import { messageOrNull } from '../wire-values.js'
import { describeTopics, kafkaSource } from './config-entries.js'
import { failureOf, toController } from './forwarded-call.js'

type Result = kafka.CreateTopicsResponseCreatableTopicResultInput

/** The time the controller gets beyond the client's timeout: the trip and its store writes. */
const TIMEOUT_MARGIN_MS = 5_000

function toCreatable(t: kafka.CreateTopicsRequestCreatableTopic): wire.CreatableTopic | string {
  const configs: Record<string, string> = {}
  for (const c of t.configs) {
    if (c.value === null) return `config "${c.name}" has a null value`
    configs[c.name] = c.value
  }
  return {
    name: t.name,
    num_partitions: t.numPartitions,
    replication_factor: t.replicationFactor,
    assignments: t.assignments.map((a) => ({ partition: a.partitionIndex, replicas: a.brokerIds })),
    configs,
  }
}

/** v5+: the created topic's effective configs; null when they cannot be read (Kafka's "unknown"). */
async function configsOf(
  ctx: KafkaRequestContext,
  names: readonly string[],
): Promise<Map<string, kafka.CreateTopicsResponseCreatableTopicConfigsInput[]>> {
  try {
    const described = await describeTopics(ctx, names)
    const out = new Map<string, kafka.CreateTopicsResponseCreatableTopicConfigsInput[]>()
    for (const [name, t] of described) {
      if (t.error_code !== 0) continue
      out.set(
        name,
        t.configs.map((c) => ({
          name: c.name,
          value: c.value,
          readOnly: false,
          configSource: kafkaSource(c),
          isSensitive: false,
        })),
      )
    }
    return out
  } catch {
    return new Map()
  }
}

export const createTopicsHandler: KafkaApiHandler<kafka.CreateTopicsRequest, kafka.CreateTopicsResponseInput> = {
  codec: kafka.CreateTopicsApi,
  minVersion: 2,
  maxVersion: 7,
  async handle(req, version, ctx) {
    const refused = new Map<string, Result>()
    const forwarded: wire.CreatableTopic[] = []
    for (const t of req.topics) {
      const c = toCreatable(t)
      if (typeof c === 'string')
        refused.set(t.name, { name: t.name, errorCode: errorId('INVALID_CONFIG'), errorMessage: c, configs: null })
      else forwarded.push(c)
    }
    let results: wire.CreatableTopicResult__Output[] = []
    if (forwarded.length > 0) {
      const grpcReq: wire.CreateTopicsRequest = {
        topics: forwarded,
        validate_only: req.validateOnly,
        timeout_ms: req.timeoutMs,
      }
      try {
        const res = await toController<wire.CreateTopicsResponse__Output>(
          ctx,
          (c, o, cb) => c.CreateTopics(grpcReq, o, cb),
          Math.max(0, req.timeoutMs) + TIMEOUT_MARGIN_MS,
        )
        results = res.topics
      } catch (err) {
        const f = failureOf(ctx, err, 'NOT_CONTROLLER')
        for (const t of forwarded) refused.set(t.name!, { name: t.name!, ...f, configs: null })
      }
    }
    const created = results.filter((r) => r.error_code === 0 && !req.validateOnly).map((r) => r.name)
    const configs = version >= 5 && created.length > 0 ? await configsOf(ctx, created) : new Map()
    const answered = new Map<string, Result>(refused)
    for (const r of results) {
      answered.set(r.name, {
        name: r.name,
        topicId: kafkaTopicId(r.topic_id),
        errorCode: kafkaErrorCode(r.error_code),
        errorMessage: messageOrNull(r.error_message),
        numPartitions: r.error_code === 0 ? r.num_partitions : -1,
        replicationFactor: r.error_code === 0 ? r.replication_factor : -1,
        configs: configs.get(r.name) ?? null,
      })
    }
    return { topics: [...answered.values()] }
  },
}
