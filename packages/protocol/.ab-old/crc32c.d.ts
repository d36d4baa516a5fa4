export declare function crc32c(data: Uint8Array): number;
//# sourceMappingURL=crc32c.d.ts.map