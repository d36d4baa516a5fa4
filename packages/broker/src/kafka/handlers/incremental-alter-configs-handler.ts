/**
 * IncrementalAlterConfigs 0-1 (KIP-339): SET and DELETE map to the controller's own set and
 * delete; APPEND and SUBTRACT, allowed only on list configs (cleanup.policy), add values missing
 * from or remove values present in the topic's current effective list, then set the result. The
 * controller validates what comes out (an empty cleanup.policy is INVALID_CONFIG).
 */
import { errorId, kafka, type wire } from '@sluice/protocol'
import type { KafkaApiHandler } from '../kafka-api-handler.js'
import { isListConfig } from './config-entries.js'
import { alterTopicConfigs, type Plan } from './config-alteration.js'

const SET = 0
const DELETE = 1
const APPEND = 2
const SUBTRACT = 3

const listOf = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')

function plan(r: kafka.IncrementalAlterConfigsRequestAlterConfigsResource, t: wire.TopicDescription__Output): Plan {
  const current = new Map(t.configs.map((c) => [c.name, c.value]))
  const out: wire.AlterableConfig[] = []
  for (const c of r.configs) {
    const op = c.configOperation
    if (op === DELETE) {
      out.push({ name: c.name, value: '', op: 'delete' })
      continue
    }
    if (c.value === null)
      return {
        errorCode: errorId('INVALID_REQUEST'),
        errorMessage: `config "${c.name}" needs a value for operation ${op}`,
      }
    if (op === SET) {
      out.push({ name: c.name, value: c.value, op: 'set' })
      continue
    }
    if (op !== APPEND && op !== SUBTRACT)
      return { errorCode: errorId('INVALID_REQUEST'), errorMessage: `unknown config operation ${op} for "${c.name}"` }
    if (!isListConfig(c.name))
      return {
        errorCode: errorId('INVALID_CONFIG'),
        errorMessage: `config "${c.name}" is not a list, so it cannot be appended to or subtracted from`,
      }
    const now = listOf(current.get(c.name) ?? '')
    const values = listOf(c.value)
    const next =
      op === APPEND ? [...now, ...values.filter((v) => !now.includes(v))] : now.filter((v) => !values.includes(v))
    out.push({ name: c.name, value: next.join(','), op: 'set' })
  }
  return out
}

export const incrementalAlterConfigsHandler: KafkaApiHandler<
  kafka.IncrementalAlterConfigsRequest,
  kafka.IncrementalAlterConfigsResponseInput
> = {
  codec: kafka.IncrementalAlterConfigsApi,
  minVersion: 0,
  maxVersion: 1,
  async handle(req, _version, ctx) {
    const responses = await alterTopicConfigs(ctx, req.resources, req.validateOnly, plan)
    return { throttleTimeMs: 0, responses }
  },
}
