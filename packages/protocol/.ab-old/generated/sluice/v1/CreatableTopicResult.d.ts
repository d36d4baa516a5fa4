export interface CreatableTopicResult {
    'name'?: (string);
    'error_code'?: (number);
    'error_message'?: (string);
    'topic_id'?: (string);
    'num_partitions'?: (number);
    'replication_factor'?: (number);
}
export interface CreatableTopicResult__Output {
    'name': (string);
    'error_code': (number);
    'error_message': (string);
    'topic_id': (string);
    'num_partitions': (number);
    'replication_factor': (number);
}
//# sourceMappingURL=CreatableTopicResult.d.ts.map