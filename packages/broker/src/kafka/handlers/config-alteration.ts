/**
 * What AlterConfigs and IncrementalAlterConfigs share: both become one incremental AlterConfigs
 * call on the controller (each entry sets or deletes one override), which validates the result
 * as a whole. Each API only plans the entries of a topic from its current description; broker
 * resources are refused, since Sluice's broker settings are fixed at start (Kafka answers a
 * config it cannot change dynamically with INVALID_REQUEST too).
 *
 * Planning reads the topic and then writes, so two concurrent alterations of one topic may
 * interleave; Kafka's ZooKeeper-era brokers had the same window.
 */
import { errorId, type wire } from '@sluice/protocol'
import type { KafkaRequestContext } from '../kafka-api-handler.js'
import { kafkaErrorCode } from '../kafka-error-code.js'
import { messageOrNull } from '../wire-values.js'
import { BROKER_RESOURCE, TOPIC_RESOURCE, describeTopics } from './config-entries.js'
import { failureOf, toController } from './forwarded-call.js'

export interface AlterationResource {
  readonly resourceType: number
  readonly resourceName: string
}

export interface AlterationResult {
  errorCode: number
  errorMessage: string | null
  resourceType: number
  resourceName: string
}

/** A topic's entries for the controller, or why they cannot be made (INVALID_CONFIG / _REQUEST). */
export type Plan = wire.AlterableConfig[] | { readonly errorCode: number; readonly errorMessage: string }

export async function alterTopicConfigs<R extends AlterationResource>(
  ctx: KafkaRequestContext,
  resources: readonly R[],
  validateOnly: boolean,
  plan: (resource: R, topic: wire.TopicDescription__Output) => Plan,
): Promise<AlterationResult[]> {
  const answers = new Map<R, AlterationResult>()
  const answer = (r: R, errorCode: number, errorMessage: string | null): void => {
    answers.set(r, { errorCode, errorMessage, resourceType: r.resourceType, resourceName: r.resourceName })
  }
  const topics = resources.filter((r) => r.resourceType === TOPIC_RESOURCE)
  for (const r of resources) {
    if (r.resourceType === BROKER_RESOURCE)
      answer(r, errorId('INVALID_REQUEST'), "Sluice's broker settings are fixed at start and cannot be altered")
    else if (r.resourceType !== TOPIC_RESOURCE)
      answer(r, errorId('INVALID_REQUEST'), `resource type ${r.resourceType} is not supported (2 = topic, 4 = broker)`)
  }
  try {
    const described = await describeTopics(
      ctx,
      topics.map((r) => r.resourceName),
    )
    const forwarded: R[] = []
    const grpcResources: wire.AlterConfigsResource[] = []
    for (const r of topics) {
      const t = described.get(r.resourceName)
      if (t === undefined || t.error_code !== 0) {
        answer(
          r,
          t === undefined ? errorId('UNKNOWN_TOPIC_OR_PARTITION') : kafkaErrorCode(t.error_code),
          t === undefined ? `topic ${r.resourceName} does not exist` : messageOrNull(t.error_message),
        )
        continue
      }
      const p = plan(r, t)
      if (!Array.isArray(p)) {
        answer(r, p.errorCode, p.errorMessage)
        continue
      }
      forwarded.push(r)
      grpcResources.push({ topic: r.resourceName, configs: p })
    }
    if (grpcResources.length > 0) {
      const grpcReq: wire.AlterConfigsRequest = { resources: grpcResources, validate_only: validateOnly }
      const res = await toController<wire.AlterConfigsResponse__Output>(ctx, (c, o, cb) =>
        c.AlterConfigs(grpcReq, o, cb),
      )
      forwarded.forEach((r, i) => {
        const out = res.resources[i]
        if (out === undefined) answer(r, errorId('UNKNOWN_SERVER_ERROR'), 'the controller left this topic out')
        else answer(r, kafkaErrorCode(out.error_code), messageOrNull(out.error_message))
      })
    }
  } catch (err) {
    const f = failureOf(ctx, err, 'REQUEST_TIMED_OUT')
    for (const r of topics) if (!answers.has(r)) answer(r, f.errorCode, f.errorMessage)
  }
  return resources.map((r) => answers.get(r)!)
}
