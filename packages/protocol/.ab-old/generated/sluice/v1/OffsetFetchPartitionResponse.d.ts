import type { Long } from '@grpc/proto-loader';
export interface OffsetFetchPartitionResponse {
    'partition'?: (number);
    /**
     * -1 when nothing is committed.
     */
    'committed_offset'?: (number | string | Long);
    'committed_leader_epoch'?: (number);
    'metadata'?: (string);
    'error_code'?: (number);
    'error_message'?: (string);
}
export interface OffsetFetchPartitionResponse__Output {
    'partition': (number);
    /**
     * -1 when nothing is committed.
     */
    'committed_offset': (string);
    'committed_leader_epoch': (number);
    'metadata': (string);
    'error_code': (number);
    'error_message': (string);
}
//# sourceMappingURL=OffsetFetchPartitionResponse.d.ts.map