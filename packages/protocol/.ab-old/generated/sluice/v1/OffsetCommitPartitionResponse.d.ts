export interface OffsetCommitPartitionResponse {
    'partition'?: (number);
    'error_code'?: (number);
    'error_message'?: (string);
}
export interface OffsetCommitPartitionResponse__Output {
    'partition': (number);
    'error_code': (number);
    'error_message': (string);
}
//# sourceMappingURL=OffsetCommitPartitionResponse.d.ts.map