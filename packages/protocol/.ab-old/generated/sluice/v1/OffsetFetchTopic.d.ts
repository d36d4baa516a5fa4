export interface OffsetFetchTopic {
    'topic'?: (string);
    /**
     * Empty = every partition with a committed offset.
     */
    'partitions'?: (number)[];
}
export interface OffsetFetchTopic__Output {
    'topic': (string);
    /**
     * Empty = every partition with a committed offset.
     */
    'partitions': (number)[];
}
//# sourceMappingURL=OffsetFetchTopic.d.ts.map