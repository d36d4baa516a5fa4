/**
 * AlterConfigs 0-2, Kafka's legacy, non-incremental form: the configs in a resource replace all
 * of the topic's overrides, so an override left out returns to its default. Sluice's controller
 * alters incrementally, so the replacement is computed here from the topic's current overrides:
 * a set for each config given, a delete for each override not given. A null value leaves that
 * config at its default.
 */
import { kafka, type wire } from '@sluice/protocol'
import type { KafkaApiHandler } from '../kafka-api-handler.js'
import { overridesOf } from './config-entries.js'
import { alterTopicConfigs, type Plan } from './config-alteration.js'

function replacement(r: kafka.AlterConfigsRequestAlterConfigsResource, t: wire.TopicDescription__Output): Plan {
  const given = r.configs.filter((c) => c.value !== null)
  const kept = new Set(given.map((c) => c.name))
  return [
    ...given.map((c) => ({ name: c.name, value: c.value!, op: 'set' })),
    ...[...overridesOf(t).keys()].filter((name) => !kept.has(name)).map((name) => ({ name, value: '', op: 'delete' })),
  ]
}

export const alterConfigsHandler: KafkaApiHandler<kafka.AlterConfigsRequest, kafka.AlterConfigsResponseInput> = {
  codec: kafka.AlterConfigsApi,
  minVersion: 0,
  maxVersion: 2,
  async handle(req, _version, ctx) {
    const responses = await alterTopicConfigs(ctx, req.resources, req.validateOnly, replacement)
    return { throttleTimeMs: 0, responses }
  },
}
