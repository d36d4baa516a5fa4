export declare const XERIAL_MAGIC: Buffer<ArrayBuffer>;
export declare const XERIAL_HEADER_BYTES = 16;
/** snappy-java's default block size, which Kafka uses. */
export declare const XERIAL_BLOCK_BYTES: number;
export declare function snappyXerialCompress(input: Buffer): Buffer;
export declare function snappyDecompress(input: Buffer): Buffer;
//# sourceMappingURL=snappy-xerial.d.ts.map