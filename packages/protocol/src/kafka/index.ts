export { KafkaWireError } from './kafka-wire-error.js'
export { KafkaWriter } from './kafka-writer.js'
export { KafkaReader } from './kafka-reader.js'
export {
  DEFAULT_MAX_FRAME_BYTES,
  KafkaFrameSplitter,
  type KafkaRequestHeader,
  type RequestHeaderVersion,
  type ResponseHeaderVersion,
  readRequestHeader,
  readResponseHeader,
  splitKafkaFrames,
  writeRequestHeader,
  writeResponseHeader,
} from './kafka-frame.js'
export type { KafkaApiCodec } from './kafka-api-codec.js'
export {
  KafkaClientConnection,
  type KafkaClientConnectionOptions,
  type KafkaRequestOptions,
} from './kafka-client-connection.js'
export * from './messages/index.js'
export {
  divergingEpochRead,
  kafkaDivergingEpoch,
  wireFetchPartition,
} from './fetch-partition-answer.js'
