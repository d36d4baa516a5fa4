/**
 * Which transport a producer's or consumer's channel to one broker takes (ConnectOptions
 * .dataTransport): Kafka's protocol to the broker's Kafka listener when the client asks for it,
 * the broker advertises a listener and the requests are ones Kafka answers; gRPC otherwise. The
 * key names the route, so a channel is replaced when the broker's endpoints or the choice change
 * (a broker restarted elsewhere, or started advertising a Kafka listener).
 */
import type { DataTransport } from '../options.js'
import type { BrokerNode } from './metadata-cache.js'

export type DataRoute =
  | { readonly key: string; readonly transport: 'kafka'; readonly host: string; readonly port: number }
  | { readonly key: string; readonly transport: 'grpc'; readonly endpoint: string }

/**
 * `answered` is false for requests the broker never answers (acks=0 produce): Kafka sends nothing
 * back for those, so only gRPC can tell that one was written.
 */
export function dataRoute(node: BrokerNode, wanted: DataTransport, answered = true): DataRoute {
  const k = node.kafkaEndpoint
  if (wanted === 'kafka' && answered && k !== undefined) {
    return { key: `kafka:${k.host}:${k.port}`, transport: 'kafka', host: k.host, port: k.port }
  }
  return { key: `grpc:${node.endpoint}`, transport: 'grpc', endpoint: node.endpoint }
}
