export * from './errors.js'
export * from './grpc-status.js'
export * from './crc32c.js'
export * from './int64.js'
export * from './buffer-methods.js'
export * from './min-heap.js'
export * from './topic-name.js'
export * from './topic-config.js'
export * from './proto.js'
export * from './record-batch/batch-header.js'
export type * as wire from './generated/index.js'
export * from './record-batch/record-types.js'
export { encodeRecordBatch } from './record-batch/record-encoder.js'
export { decodeRecordBatches } from './record-batch/record-decoder.js'
export {
  frameBatchAt,
  readRecordHeaders,
  readRecordKey,
  readRecordValue,
  walkBatch,
  walkBatchLazily,
  walkRecordBatches,
  type RecordPositionSink,
  type RecordSink,
  type WalkOptions,
} from './record-batch/record-walker.js'
export * from './murmur2.js'
export { systemClock, type Clock, type Timer } from './clock.js'
export { ManualClock } from './manual-clock.js'
export {
  encodeSubscription,
  decodeSubscription,
  encodeAssignment,
  decodeAssignment,
  SUBSCRIPTION_VERSION,
  ASSIGNMENT_VERSION,
  type Subscription,
  type MemberAssignment,
} from './group/consumer-protocol.js'
export * as kafka from './kafka/index.js'
export { kafkaErrorCode, sluiceErrorFromKafka } from './kafka/kafka-error-code.js'
export * from './trace.js'
