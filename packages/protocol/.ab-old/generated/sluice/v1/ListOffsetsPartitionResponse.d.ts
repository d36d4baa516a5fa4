import type { Long } from '@grpc/proto-loader';
export interface ListOffsetsPartitionResponse {
    'partition'?: (number);
    'error_code'?: (number);
    'error_message'?: (string);
    'timestamp'?: (number | string | Long);
    /**
     * -1 when no record matches the timestamp.
     */
    'offset'?: (number | string | Long);
    'leader_epoch'?: (number);
}
export interface ListOffsetsPartitionResponse__Output {
    'partition': (number);
    'error_code': (number);
    'error_message': (string);
    'timestamp': (string);
    /**
     * -1 when no record matches the timestamp.
     */
    'offset': (string);
    'leader_epoch': (number);
}
//# sourceMappingURL=ListOffsetsPartitionResponse.d.ts.map