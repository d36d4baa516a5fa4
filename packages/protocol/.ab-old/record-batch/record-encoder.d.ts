import type { EncodeBatchOptions, RecordInput } from './record-types.js';
/** Encodes `records` as one RecordBatch v2; see the module comment for the layout. */
export declare function encodeRecordBatch(records: readonly RecordInput[], options?: EncodeBatchOptions): Buffer;
//# sourceMappingURL=record-encoder.d.ts.map