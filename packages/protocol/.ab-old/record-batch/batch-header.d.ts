import { SluiceError } from '../errors.js';
export declare const BATCH_HEADER_BYTES = 61;
/** baseOffset + batchLength: the part of the header not counted by batchLength. */
export declare const LOG_OVERHEAD_BYTES = 12;
export declare const CURRENT_MAGIC = 2;
export declare const OFF_BASE_OFFSET = 0;
export declare const OFF_BATCH_LENGTH = 8;
export declare const OFF_PARTITION_LEADER_EPOCH = 12;
export declare const OFF_MAGIC = 16;
export declare const OFF_CRC = 17;
export declare const OFF_ATTRIBUTES = 21;
export declare const OFF_LAST_OFFSET_DELTA = 23;
export declare const OFF_BASE_TIMESTAMP = 27;
export declare const OFF_MAX_TIMESTAMP = 35;
export declare const OFF_PRODUCER_ID = 43;
export declare const OFF_PRODUCER_EPOCH = 51;
export declare const OFF_BASE_SEQUENCE = 53;
export declare const OFF_RECORD_COUNT = 57;
export declare const COMPRESSION_CODEC_MASK = 7;
export declare const TIMESTAMP_TYPE_MASK = 8;
export declare const TRANSACTIONAL_MASK = 16;
export declare const CONTROL_MASK = 32;
export declare const DELETE_HORIZON_MASK = 64;
export interface BatchHeader {
    /** Byte position of the batch inside the buffer it was read from. */
    readonly position: number;
    /** Whole batch size in bytes (LOG_OVERHEAD_BYTES + batchLength). */
    readonly sizeBytes: number;
    readonly baseOffset: bigint;
    readonly batchLength: number;
    readonly partitionLeaderEpoch: number;
    readonly magic: number;
    readonly crc: number;
    readonly attributes: number;
    readonly lastOffsetDelta: number;
    readonly baseTimestamp: bigint;
    readonly maxTimestamp: bigint;
    readonly producerId: bigint;
    readonly producerEpoch: number;
    readonly baseSequence: number;
    readonly recordCount: number;
}
/**
 * Reads the header of the batch at `position`. Returns undefined when fewer than a header's
 * bytes remain (a short tail); it does not check magic or CRC (see validateBatchAt).
 */
export declare function readBatchHeader(buf: Buffer, position?: number): BatchHeader | undefined;
/** The reason a batch was rejected, or undefined if it is valid. */
export type BatchProblem = {
    kind: 'truncated';
    message: string;
} | {
    kind: 'bad-magic';
    message: string;
} | {
    kind: 'bad-length';
    message: string;
} | {
    kind: 'bad-crc';
    message: string;
} | {
    kind: 'bad-header';
    message: string;
};
/**
 * Checks the batch at `position` fully: enough bytes, sane length, magic 2, CRC-32C over
 * attributes..end, and header fields that agree with each other. Never reads records.
 */
export declare function checkBatchAt(buf: Buffer, position: number): BatchProblem | undefined;
/** Throws the typed error for a batch problem (CORRUPT_MESSAGE for CRC, INVALID_BATCH otherwise). */
export declare function batchProblemError(problem: BatchProblem): SluiceError;
export interface BatchSpan {
    readonly position: number;
    readonly sizeBytes: number;
    readonly recordCount: number;
    readonly lastOffsetDelta: number;
    readonly maxTimestamp: bigint;
    readonly baseTimestamp: bigint;
    readonly partitionLeaderEpoch: number;
    readonly producerId: bigint;
    readonly producerEpoch: number;
    readonly baseSequence: number;
    readonly attributes: number;
}
/**
 * Validates every batch in `buf` (one or more batches back to back, as in a produce request)
 * and returns their spans. Throws CORRUPT_MESSAGE / INVALID_BATCH on the first bad one; the
 * caller then appends nothing.
 */
export declare function validateBatches(buf: Buffer): BatchSpan[];
/** Writes the offset and leader epoch into a batch in place (not covered by the CRC). */
export declare function stampBatch(buf: Buffer, position: number, baseOffset: bigint, leaderEpoch: number): void;
//# sourceMappingURL=batch-header.d.ts.map