/** Largest magnitude the number path handles exactly: zig-zag(±2^52) < 2^53. */
export declare const VARLONG_NUMBER_LIMIT: number;
/** Zig-zag of an int32, as an unsigned 32-bit number. */
export declare function zigZag32(n: number): number;
/** Bytes needed by the zig-zag varint of int32 `n`. */
export declare function varintSize(n: number): number;
/** Writes the zig-zag varint of int32 `n` at `pos`; returns the position after it. */
export declare function writeVarint(buf: Uint8Array, pos: number, n: number): number;
/** Bytes needed by the zig-zag varlong of `n`, where |n| < VARLONG_NUMBER_LIMIT. */
export declare function varlongSizeNumber(n: number): number;
/** Writes the zig-zag varlong of `n` (|n| < VARLONG_NUMBER_LIMIT) at `pos`. */
export declare function writeVarlongNumber(buf: Uint8Array, pos: number, n: number): number;
/** Bytes needed by the zig-zag varlong of any int64 (wrapped to 64 bits as Java would). */
export declare function varlongSizeBigInt(n: bigint): number;
/** Writes the zig-zag varlong of any int64 (wrapped to 64 bits as Java would). */
export declare function writeVarlongBigInt(buf: Uint8Array, pos: number, n: bigint): number;
/**
 * Sequential reader over [pos, end) of a buffer. Every read is bounds-checked and fails with
 * CORRUPT_MESSAGE, so a malformed batch can never surface as a RangeError or read past `end`.
 */
export declare class VarintReader {
    buf: Buffer;
    pos: number;
    end: number;
    constructor(buf: Buffer, pos: number, end: number);
    readInt8(): number;
    /** Kafka's readVarint, including its tolerance of a fifth byte's high bits. */
    readVarint(): number;
    /** Kafka's readVarlong; a number when exact (|v| < 2^52), a bigint otherwise. */
    readVarlong(): number | bigint;
    /** A length-prefixed byte string as a view into the buffer; -1 = null. */
    readBytes(what: string): Buffer | null;
    readString(what: string): string;
}
//# sourceMappingURL=varint.d.ts.map