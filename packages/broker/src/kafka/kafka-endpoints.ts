/**
 * Where Kafka clients reach broker N: this broker's own advertised listener, or another live
 * broker's as it registered it with the metadata service (MetadataCache.kafkaEndpoint). The one
 * lookup behind every Kafka answer that names brokers (Metadata, DescribeCluster), so a client
 * never sees a gRPC port.
 */
import type { KafkaRequestContext } from './kafka-api-handler.js'

export function kafkaEndpointOf(
  ctx: KafkaRequestContext,
  brokerId: number,
): { host: string; port: number } | undefined {
  if (brokerId === ctx.listener.brokerId) return { host: ctx.listener.host, port: ctx.listener.port }
  return ctx.broker.cache.kafkaEndpoint(brokerId)
}
