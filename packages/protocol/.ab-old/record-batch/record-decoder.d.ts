import type { DecodedBatch } from './record-types.js';
/**
 * Decodes every complete batch in `buf`; a truncated trailing batch is skipped. Throws
 * CORRUPT_MESSAGE on a bad CRC unless verifyCrc is false.
 */
export declare function decodeRecordBatches(buf: Buffer, options?: {
    verifyCrc?: boolean;
}): DecodedBatch[];
//# sourceMappingURL=record-decoder.d.ts.map