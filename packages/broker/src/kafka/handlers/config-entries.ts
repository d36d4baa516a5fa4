/**
 * Topic configs as Kafka's config APIs present them: the metadata service's effective entries
 * (DescribeTopics, each with source "topic" for an override or "default") with Kafka's config
 * source and type ids, the broker-level name each topic config defaults from (Kafka's synonyms),
 * and the documentation from the one topic config table (packages/protocol topic-config.ts).
 */
import { TOPIC_CONFIG_SPECS, type TopicConfigName, type wire } from '@sluice/protocol'
import type { KafkaRequestContext } from '../kafka-api-handler.js'
import { toController } from './forwarded-call.js'

/** Kafka's DescribeConfigs resource types. */
export const TOPIC_RESOURCE = 2
export const BROKER_RESOURCE = 4

/** Kafka's config source ids (DescribeConfigsResponse ConfigSource). */
export const SOURCE_TOPIC_OVERRIDE = 1
export const SOURCE_STATIC_BROKER = 4
export const SOURCE_DEFAULT = 5

/** Kafka's config type ids (KIP-569). */
const TYPE = { BOOLEAN: 1, STRING: 2, INT: 3, LONG: 5, DOUBLE: 6, LIST: 7 } as const

const KAFKA_TYPE: Record<TopicConfigName, number> = {
  'segment.bytes': TYPE.INT,
  'segment.ms': TYPE.LONG,
  'segment.index.bytes': TYPE.INT,
  'index.interval.bytes': TYPE.INT,
  'retention.ms': TYPE.LONG,
  'retention.bytes': TYPE.LONG,
  'max.message.bytes': TYPE.INT,
  'cleanup.policy': TYPE.LIST,
  'delete.retention.ms': TYPE.LONG,
  'min.cleanable.dirty.ratio': TYPE.DOUBLE,
  'min.compaction.lag.ms': TYPE.LONG,
  'min.insync.replicas': TYPE.INT,
  'unclean.leader.election.enable': TYPE.BOOLEAN,
  'message.timestamp.type': TYPE.STRING,
  flush: TYPE.STRING,
}

/** The broker config each topic config defaults from in Kafka (flush is Sluice's own). */
export const BROKER_SYNONYM: Record<TopicConfigName, string> = {
  'segment.bytes': 'log.segment.bytes',
  'segment.ms': 'log.roll.ms',
  'segment.index.bytes': 'log.index.size.max.bytes',
  'index.interval.bytes': 'log.index.interval.bytes',
  'retention.ms': 'log.retention.ms',
  'retention.bytes': 'log.retention.bytes',
  'max.message.bytes': 'message.max.bytes',
  'cleanup.policy': 'log.cleanup.policy',
  'delete.retention.ms': 'log.cleaner.delete.retention.ms',
  'min.cleanable.dirty.ratio': 'log.cleaner.min.cleanable.ratio',
  'min.compaction.lag.ms': 'log.cleaner.min.compaction.lag.ms',
  'min.insync.replicas': 'min.insync.replicas',
  'unclean.leader.election.enable': 'unclean.leader.election.enable',
  'message.timestamp.type': 'log.message.timestamp.type',
  flush: 'flush',
}

function isTopicConfig(name: string): name is TopicConfigName {
  return Object.hasOwn(TOPIC_CONFIG_SPECS, name)
}

/** Whether a config holds a comma-separated list (what APPEND and SUBTRACT work on). */
export function isListConfig(name: string): boolean {
  return isTopicConfig(name) && KAFKA_TYPE[name] === TYPE.LIST
}

export function kafkaConfigType(name: string): number {
  return isTopicConfig(name) ? KAFKA_TYPE[name] : 0
}

export function configDoc(name: string): string | null {
  return isTopicConfig(name) ? TOPIC_CONFIG_SPECS[name].doc : null
}

export function kafkaSource(entry: wire.TopicConfigEntry__Output): number {
  return entry.source === 'topic' ? SOURCE_TOPIC_OVERRIDE : SOURCE_DEFAULT
}

/** The topics' descriptions (configs included) by name, from the metadata service. */
export async function describeTopics(
  ctx: KafkaRequestContext,
  names: readonly string[],
): Promise<Map<string, wire.TopicDescription__Output>> {
  // An empty list would mean "every topic" to the service.
  if (names.length === 0) return new Map()
  const req: wire.DescribeTopicsRequest = { names: [...new Set(names)], include_internal: true }
  const res = await toController<wire.DescribeTopicsResponse__Output>(ctx, (c, o, cb) => c.DescribeTopics(req, o, cb))
  return new Map(res.topics.map((t) => [t.name, t]))
}

/** A topic's current overrides (name -> value). */
export function overridesOf(t: wire.TopicDescription__Output): Map<string, string> {
  return new Map(t.configs.filter((c) => c.source === 'topic').map((c) => [c.name, c.value]))
}
