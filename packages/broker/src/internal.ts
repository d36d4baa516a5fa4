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
export type { KafkaApiCodec } from './kafka/codec-stand-in.js'
export type { BrokerContext } from './server/context.js'
