/** @sluice/client: the typed Sluice SDK. Only interfaces, types and factories are public. */
export { connect } from './client.js'
export type { SluiceClient } from './client.js'
export type { ConnectOptions, DataTransport, RetryOptions } from './options.js'
export type { Logger, LogFn } from './logger.js'
export type {
  Admin,
  NewTopic,
  CreatedTopic,
  TopicDescription,
  PartitionDescription,
  ConfigEntry,
  ClusterDescription,
  BrokerDescription,
  ConfigAlteration,
  ElectLeadersResult,
  DeleteRecordsTarget,
  DeletedRecords,
} from './admin/admin-types.js'
export type {
  GroupListing,
  GroupDescription,
  GroupMemberDescription,
  GroupOffset,
  OffsetSpec,
  ListedOffset,
  ResetSpec,
  OffsetResetPlanItem,
} from './admin/group-admin-types.js'
export type {
  Producer,
  ProducerOptions,
  ProducerRecord,
  RecordMetadata,
  HeadersInput,
} from './producer/producer.js'
export type { Partitioner, PartitionerArgs, KeylessStrategy } from './producer/partitioner.js'
/** The default partitioner's choice for a key (murmur2, as Kafka's clients); streams routes key queries with it. */
export { partitionForKey } from '@sluice/protocol'
export type {
  Consumer,
  ConsumerOptions,
  ConsumerMessage,
  ConsumerBatch,
  TopicPartition,
  SeekOffset,
  RunOptions,
  RunHandle,
  EachMessagePayload,
  EachBatchPayload,
} from './consumer/consumer-types.js'
export type {
  GroupConsumer,
  GroupConsumerOptions,
  GroupRunOptions,
  GroupMetadata,
  RebalanceListener,
  CommitOffset,
  RetryPolicy,
} from './consumer/group/group-types.js'
export type { AssignorName, AssignorMember } from './consumer/assignors/assignor-types.js'
export type {
  CustomAssignor,
  CustomAssignorInput,
  CustomAssignorMember,
  CustomAssignment,
  CustomMemberAssignment,
  ReceivedAssignment,
} from './consumer/assignors/custom-assignor.js'
export { DLQ_HEADERS } from './consumer/group/dead-letter.js'
export { SluiceError, ErrorCode, isSluiceError } from '@sluice/protocol'
export type { ErrorCodeName, CompressionType, RecordHeader } from '@sluice/protocol'
