export interface TopicPartitions {
    'topic'?: (string);
    'partitions'?: (number)[];
}
export interface TopicPartitions__Output {
    'topic': (string);
    'partitions': (number)[];
}
//# sourceMappingURL=TopicPartitions.d.ts.map