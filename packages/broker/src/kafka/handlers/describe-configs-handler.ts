/**
 * DescribeConfigs 1-4. Topic resources (type 2) are answered from the controller's effective
 * config of the topic: every topic config, its source (a per-topic override, or the default),
 * with synonyms (v1+, the override then the broker-level default it shadows), types and
 * documentation (v3+) when asked. Broker resources (type 4, this broker's id or "" for the
 * cluster default) list the settings a Kafka tool looks for: the broker id, its advertised Kafka
 * listener and the broker-level defaults of the topic configs, all read-only because Sluice's
 * broker settings are fixed at start. Any other resource type is INVALID_REQUEST.
 */
import { defaultTopicConfig, errorId, kafka, type TopicConfigName, type wire } from '@sluice/protocol'
import type { KafkaApiHandler, KafkaRequestContext } from '../kafka-api-handler.js'
import { kafkaErrorCode } from '../kafka-error-code.js'
import { messageOrNull } from '../wire-values.js'
import {
  BROKER_RESOURCE,
  BROKER_SYNONYM,
  SOURCE_DEFAULT,
  SOURCE_STATIC_BROKER,
  TOPIC_RESOURCE,
  configDoc,
  describeTopics,
  kafkaConfigType,
  kafkaSource,
} from './config-entries.js'
import { failureOf } from './forwarded-call.js'

type Resource = kafka.DescribeConfigsRequestDescribeConfigsResource
type Result = kafka.DescribeConfigsResponseDescribeConfigsResultInput
type Entry = kafka.DescribeConfigsResponseDescribeConfigsResourceResultInput

interface Flags {
  readonly synonyms: boolean
  readonly documentation: boolean
}

function wanted(r: Resource, name: string): boolean {
  return r.configurationKeys === null || r.configurationKeys.includes(name)
}

function topicEntry(c: wire.TopicConfigEntry__Output, flags: Flags): Entry {
  const source = kafkaSource(c)
  const brokerName = BROKER_SYNONYM[c.name as TopicConfigName]
  const synonyms = flags.synonyms
    ? [
        ...(source === SOURCE_DEFAULT ? [] : [{ name: c.name, value: c.value, source }]),
        ...(brokerName !== undefined
          ? [
              {
                name: brokerName,
                value: String(defaultTopicConfig()[c.name as TopicConfigName]),
                source: SOURCE_DEFAULT,
              },
            ]
          : []),
      ]
    : []
  return {
    name: c.name,
    value: c.value,
    readOnly: false,
    isDefault: source === SOURCE_DEFAULT,
    configSource: source,
    isSensitive: false,
    synonyms,
    configType: kafkaConfigType(c.name),
    documentation: flags.documentation ? configDoc(c.name) : null,
  }
}

function brokerEntries(ctx: KafkaRequestContext, flags: Flags): Entry[] {
  const fixed = (name: string, value: string, source: number, doc: string): Entry => ({
    name,
    value,
    readOnly: true,
    isDefault: source === SOURCE_DEFAULT,
    configSource: source,
    isSensitive: false,
    synonyms: flags.synonyms ? [{ name, value, source }] : [],
    configType: 2,
    documentation: flags.documentation ? doc : null,
  })
  const { brokerId, host, port } = ctx.listener
  const defaults = defaultTopicConfig()
  return [
    fixed('broker.id', String(brokerId), SOURCE_STATIC_BROKER, "The broker's id."),
    fixed(
      'advertised.listeners',
      `PLAINTEXT://${host}:${port}`,
      SOURCE_STATIC_BROKER,
      'Where Kafka clients reach this broker.',
    ),
    fixed('auto.create.topics.enable', 'false', SOURCE_DEFAULT, 'Sluice never creates a topic on first use.'),
    ...(Object.keys(BROKER_SYNONYM) as TopicConfigName[]).map((name) => ({
      ...fixed(BROKER_SYNONYM[name], String(defaults[name]), SOURCE_DEFAULT, configDoc(name) ?? ''),
      configType: kafkaConfigType(name),
    })),
  ]
}

const refusal = (r: Resource, errorCode: number, errorMessage: string): Result => ({
  errorCode,
  errorMessage,
  resourceType: r.resourceType,
  resourceName: r.resourceName,
  configs: [],
})

export const describeConfigsHandler: KafkaApiHandler<kafka.DescribeConfigsRequest, kafka.DescribeConfigsResponseInput> =
  {
    codec: kafka.DescribeConfigsApi,
    minVersion: 1,
    maxVersion: 4,
    async handle(req, version, ctx) {
      const flags = { synonyms: req.includeSynonyms, documentation: version >= 3 && req.includeDocumentation }
      const topicNames = req.resources.filter((r) => r.resourceType === TOPIC_RESOURCE).map((r) => r.resourceName)
      let topics = new Map<string, wire.TopicDescription__Output>()
      let unreachable: Result['errorCode'] | undefined
      let unreachableMessage = ''
      try {
        topics = await describeTopics(ctx, topicNames)
      } catch (err) {
        const f = failureOf(ctx, err, 'REQUEST_TIMED_OUT')
        unreachable = f.errorCode
        unreachableMessage = f.errorMessage
      }
      const results = req.resources.map((r): Result => {
        if (r.resourceType === BROKER_RESOURCE) {
          if (r.resourceName !== '' && r.resourceName !== String(ctx.listener.brokerId))
            return refusal(
              r,
              errorId('INVALID_REQUEST'),
              `this is broker ${ctx.listener.brokerId}; ask broker ${r.resourceName} for its configs`,
            )
          return {
            ...refusal(r, 0, ''),
            errorMessage: null,
            configs: brokerEntries(ctx, flags).filter((e) => wanted(r, e.name)),
          }
        }
        if (r.resourceType !== TOPIC_RESOURCE)
          return refusal(
            r,
            errorId('INVALID_REQUEST'),
            `resource type ${r.resourceType} is not supported (2 = topic, 4 = broker)`,
          )
        if (unreachable !== undefined) return refusal(r, unreachable, unreachableMessage)
        const t = topics.get(r.resourceName)
        if (t === undefined)
          return refusal(r, errorId('UNKNOWN_TOPIC_OR_PARTITION'), `topic ${r.resourceName} does not exist`)
        if (t.error_code !== 0) return refusal(r, kafkaErrorCode(t.error_code), messageOrNull(t.error_message) ?? '')
        return {
          errorCode: 0,
          errorMessage: null,
          resourceType: r.resourceType,
          resourceName: r.resourceName,
          configs: t.configs.filter((c) => wanted(r, c.name)).map((c) => topicEntry(c, flags)),
        }
      })
      return { throttleTimeMs: 0, results }
    },
  }
