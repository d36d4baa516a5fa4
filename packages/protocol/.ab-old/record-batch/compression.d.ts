import type { CompressionType } from './record-types.js';
export declare const COMPRESSION_IDS: Readonly<Record<CompressionType, number>>;
export declare const COMPRESSION_NAMES: readonly CompressionType[];
export declare function compressionId(type: CompressionType): number;
/** Compresses a records section with the codec `type` (not 'none'). */
export declare function compressRecords(type: CompressionType, records: Buffer): Buffer;
/** Decompresses a records section compressed with codec id `id` (1-4). */
export declare function decompressRecords(id: number, data: Buffer): Buffer;
//# sourceMappingURL=compression.d.ts.map