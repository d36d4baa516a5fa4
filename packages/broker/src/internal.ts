// Broker internals for sibling packages' tests and this package's tests; not a stable API.
export * from './index.js'
export { brokerInternals, type BrokerInternals } from './broker.js'
export {
  MetadataCache,
  partitionKey,
  type BrokerView,
  type PartitionStateView,
  type MetadataDelta,
} from './metadata-cache.js'
export { MetadataSession, type MetadataSessionOptions } from './metadata-session.js'
export { ReplicaManager } from './replica-manager.js'
export { Partition, type ReplicaRole } from './partition.js'
export { DelayedFetchPurgatory, type DelayedFetchOutcome, type DelayedFetchRequest } from './server/delayed-fetch.js'
export { brokerConfigSchema, loadBrokerConfig, type BrokerConfig } from './config.js'
export {
  startKafkaListener,
  DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION,
  type KafkaListener,
  type KafkaListenerOptions,
} from './kafka/kafka-listener.js'
export type {
  KafkaApiHandler,
  KafkaApiVersionRange,
  KafkaListenerInfo,
  KafkaRequestContext,
} from './kafka/kafka-api-handler.js'
export type { KafkaApiCodec } from './kafka/kafka-api-handler.js'
export type { BrokerContext } from './server/context.js'
export { dataHandlers } from './kafka/handlers/data-handlers.js'
export { deleteRecordsHandler } from './kafka/handlers/delete-records-handler.js'
export { fetchHandler } from './kafka/handlers/fetch-handler.js'
export { listOffsetsHandler } from './kafka/handlers/list-offsets-handler.js'
export { metadataHandler } from './kafka/handlers/metadata-handler.js'
export { offsetForLeaderEpochHandler } from './kafka/handlers/offset-for-leader-epoch-handler.js'
export { produceHandler } from './kafka/handlers/produce-handler.js'
export * from './kafka/handlers/coordinator-handlers.js'
export { MetadataForwarder, closeForwarder, forwarderFor } from './kafka/metadata-forwarder.js'
export { kafkaHandlers } from './kafka/kafka-handlers.js'
export { KafkaFetchConnection } from './replication/kafka-fetch-transport.js'
export { GrpcFetchConnection } from './replication/grpc-fetch-transport.js'
export {
  REPLICA_FETCH_TRANSPORTS,
  type ReplicaFetchConnection,
  type ReplicaFetchTransportKind,
} from './replication/replica-fetch-transport.js'
