/**
 * Kafka Metadata v1-12 over the broker's metadata answer (server/metadata-handler.ts, from the
 * metadata cache): which topics exist, their partitions' leaders, epochs, replicas and ISR, and
 * the errors for unknown or invalid names are the cache's; this file converts.
 *
 * What differs from the gRPC answer:
 * - Topics: null (v1+) is every topic, internal ones included (Kafka lists them with isInternal);
 *   an empty list is none. A topic named only by id (v10+) is found among every topic's ids, or
 *   UNKNOWN_TOPIC_ID. Topics are never created on request: allowAutoTopicCreation is ignored and
 *   an unknown name is UNKNOWN_TOPIC_OR_PARTITION (docs/decisions.md).
 * - Brokers are listed with their Kafka endpoints, never the gRPC ones: this broker with the
 *   endpoint its listener advertises, the others with what they registered; a live broker without
 *   a Kafka listener is left out (clients cannot reach it anyway).
 * - controllerId is this broker: Kafka clients send their admin requests (CreateTopics and the
 *   like) to the controller, and every Sluice broker forwards those to the metadata service.
 * - Authorized operations are not computed: both fields answer Kafka's "not requested" value.
 */
import { errorId, kafka, type wire } from '@sluice/protocol'
import { handleMetadata } from '../../server/metadata-handler.js'
import type { KafkaApiHandler, KafkaRequestContext } from '../kafka-api-handler.js'
import { kafkaErrorCode } from '../kafka-error-code.js'
import { isZeroTopicId, kafkaTopicId } from '../topic-id.js'

/** Kafka's value for authorized operations that were not asked for or not computed (INT32_MIN). */
const AUTHORIZED_OPERATIONS_OMITTED = -2147483648

export const metadataHandler: KafkaApiHandler<kafka.MetadataRequest, kafka.MetadataResponseInput> = {
  codec: kafka.MetadataApi,
  minVersion: 1,
  maxVersion: 12,
  async handle(req, _version, ctx) {
    const answer = handleMetadata(ctx.broker, { topics: namesOf(req.topics), include_internal: true })
    return {
      throttleTimeMs: 0,
      brokers: kafkaBrokers(answer.brokers ?? [], ctx),
      clusterId: answer.cluster_id === undefined || answer.cluster_id === '' ? null : answer.cluster_id,
      controllerId: ctx.listener.brokerId,
      topics: requestedTopics(req.topics, answer, ctx).map(kafkaTopic),
      clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
    }
  },
}

/** The names to ask the cache for: [] asks for every topic (needed for null and for ids). */
function namesOf(topics: kafka.MetadataRequestMetadataRequestTopic[] | null): string[] {
  if (topics === null || topics.some((t) => t.name === null)) return []
  return topics.map((t) => t.name as string)
}

function requestedTopics(
  topics: kafka.MetadataRequestMetadataRequestTopic[] | null,
  answer: wire.MetadataResponse,
  ctx: KafkaRequestContext,
): wire.TopicMetadata[] {
  const all = answer.topics ?? []
  if (topics === null) return all
  if (topics.length === 0) return []
  if (topics.every((t) => t.name !== null)) return all // the answer is for exactly these names
  // Some topics are named by id, so the answer holds every topic: look the ids up among them,
  // and ask the cache again for the names (its answer has the errors for unknown names).
  const names = topics.flatMap((t) => (t.name === null ? [] : [t.name]))
  const named =
    names.length === 0 ? [] : (handleMetadata(ctx.broker, { topics: names, include_internal: true }).topics ?? [])
  const byId = topics.flatMap((t) => (t.name === null ? [topicById(all, t.topicId)] : []))
  return [...named, ...byId]
}

function topicById(all: readonly wire.TopicMetadata[], topicId: Buffer): wire.TopicMetadata {
  const found = isZeroTopicId(topicId) ? undefined : all.find((t) => kafkaTopicId(t.topic_id).equals(topicId))
  return found ?? unknownTopicId(topicId)
}

function unknownTopicId(topicId: Buffer): wire.TopicMetadata {
  return { name: '', topic_id: topicId.toString('base64url'), error_code: errorId('UNKNOWN_TOPIC_ID') }
}

function kafkaTopic(t: wire.TopicMetadata): kafka.MetadataResponseMetadataResponseTopicInput {
  const errorCode = kafkaErrorCode(t.error_code)
  return {
    errorCode,
    name: errorCode === errorId('UNKNOWN_TOPIC_ID') ? null : (t.name ?? ''),
    topicId: kafkaTopicId(t.topic_id),
    isInternal: t.is_internal ?? false,
    partitions: (t.partitions ?? []).map((p) => ({
      errorCode: kafkaErrorCode(p.error_code),
      partitionIndex: p.partition ?? 0,
      leaderId: p.leader ?? -1,
      leaderEpoch: p.leader_epoch ?? -1,
      replicaNodes: p.replicas ?? [],
      isrNodes: p.isr ?? [],
      offlineReplicas: p.offline_replicas ?? [],
    })),
    topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
  }
}

function kafkaBrokers(
  brokers: readonly wire.BrokerInfo[],
  ctx: KafkaRequestContext,
): kafka.MetadataResponseMetadataResponseBrokerInput[] {
  return brokers.flatMap((b) => {
    const nodeId = b.broker_id ?? -1
    const endpoint = nodeId === ctx.listener.brokerId ? ctx.listener : ctx.broker.cache.kafkaEndpoint(nodeId)
    if (endpoint === undefined) return []
    return [
      { nodeId, host: endpoint.host, port: endpoint.port, rack: b.rack === undefined || b.rack === '' ? null : b.rack },
    ]
  })
}
