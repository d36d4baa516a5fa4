/**
 * Where Kafka clients reach broker N: this broker's own advertised listener, or another live
 * broker's as it registered it with the metadata service (MetadataCache.kafkaEndpoint).
 *
 * Stand-in: the listener branch adds MetadataCache.kafkaEndpoint; until it is merged the cache
 * knows only gRPC endpoints, so other brokers are reported only once it exists.
 */
import type { KafkaRequestContext } from './kafka-api-handler.js'

interface KafkaEndpointLookup {
  kafkaEndpoint?(brokerId: number): { host: string; port: number } | undefined
}

export function kafkaEndpointOf(
  ctx: KafkaRequestContext,
  brokerId: number,
): { host: string; port: number } | undefined {
  if (brokerId === ctx.listener.brokerId) return { host: ctx.listener.host, port: ctx.listener.port }
  return (ctx.broker.cache as KafkaEndpointLookup).kafkaEndpoint?.(brokerId)
}
