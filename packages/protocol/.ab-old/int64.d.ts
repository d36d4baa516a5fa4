/**
 * int64 wire values arrive as decimal strings (proto-loader `longs: String`); the code works in
 * bigint. These helpers are the only place that converts.
 */
export declare function toBigInt(v: string | number | bigint | null | undefined): bigint;
export declare function toInt64String(v: bigint | number): string;
//# sourceMappingURL=int64.d.ts.map