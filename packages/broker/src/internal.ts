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
export * from './kafka/handlers/coordinator-handlers.js'
export type { KafkaApiHandler, KafkaRequestContext } from './kafka/kafka-api-handler.js'
export { MetadataForwarder, closeForwarder, forwarderFor } from './kafka/metadata-forwarder.js'
