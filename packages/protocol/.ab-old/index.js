export * from './errors.js';
export * from './grpc-status.js';
export * from './crc32c.js';
export * from './int64.js';
export * from './topic-name.js';
export * from './topic-config.js';
export * from './proto.js';
export * from './config-layers.js';
export * from './record-batch/batch-header.js';
export * from './record-batch/record-types.js';
export { encodeRecordBatch } from './record-batch/record-encoder.js';
export { decodeRecordBatches } from './record-batch/record-decoder.js';
export * from './murmur2.js';
//# sourceMappingURL=index.js.map