/** Java-compatible MurmurHash2: a signed int32. */
export declare function murmur2(data: Uint8Array): number;
/** Kafka's Utils.toPositive: clears the sign bit (not Math.abs, which breaks on -2^31). */
export declare function toPositive(n: number): number;
/** The partition Kafka's default partitioner picks for a non-null key. */
export declare function partitionForKey(key: Uint8Array, numPartitions: number): number;
//# sourceMappingURL=murmur2.d.ts.map