/**
 * DescribeCluster 0-1 (KIP-700), answered from this broker's metadata cache: the live brokers at
 * their Kafka listeners and the cluster id. The controller a Kafka client should send admin
 * requests to is this broker, since every broker forwards them to the metadata service (whose
 * instances are not brokers a Kafka client could reach). v1 may ask for controller endpoints
 * (endpointType 2, KRaft's), which Sluice does not have: UNSUPPORTED_VERSION.
 */
import { errorId, kafka } from '@sluice/protocol'
import type { KafkaApiHandler, KafkaRequestContext } from '../kafka-api-handler.js'
import { kafkaEndpointOf } from '../kafka-endpoints.js'

const BROKER_ENDPOINTS = 1
const NO_AUTHORIZED_OPERATIONS = -2147483648

function brokers(ctx: KafkaRequestContext): kafka.DescribeClusterResponseDescribeClusterBrokerInput[] {
  const out: kafka.DescribeClusterResponseDescribeClusterBrokerInput[] = []
  for (const b of ctx.broker.cache.liveBrokers()) {
    const at = kafkaEndpointOf(ctx, b.brokerId)
    if (at !== undefined)
      out.push({ brokerId: b.brokerId, host: at.host, port: at.port, rack: b.rack === '' ? null : b.rack })
  }
  if (!out.some((b) => b.brokerId === ctx.listener.brokerId))
    out.push({ brokerId: ctx.listener.brokerId, host: ctx.listener.host, port: ctx.listener.port, rack: null })
  return out.sort((a, b) => a.brokerId - b.brokerId)
}

export const describeClusterHandler: KafkaApiHandler<kafka.DescribeClusterRequest, kafka.DescribeClusterResponseInput> =
  {
    codec: kafka.DescribeClusterApi,
    minVersion: 0,
    maxVersion: 1,
    async handle(req, version, ctx) {
      const endpointType = version >= 1 ? req.endpointType : BROKER_ENDPOINTS
      if (endpointType !== BROKER_ENDPOINTS)
        return {
          throttleTimeMs: 0,
          errorCode: errorId('UNSUPPORTED_VERSION'),
          errorMessage: 'Sluice has no KRaft controllers to describe; ask for brokers (endpoint type 1)',
          endpointType,
          clusterId: ctx.broker.cache.clusterId,
          controllerId: -1,
          brokers: [],
          clusterAuthorizedOperations: NO_AUTHORIZED_OPERATIONS,
        }
      return {
        throttleTimeMs: 0,
        errorCode: 0,
        errorMessage: null,
        endpointType,
        clusterId: ctx.broker.cache.clusterId,
        controllerId: ctx.listener.brokerId,
        brokers: brokers(ctx),
        clusterAuthorizedOperations: NO_AUTHORIZED_OPERATIONS,
      }
    },
  }
