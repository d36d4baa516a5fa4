import type { Long } from '@grpc/proto-loader';
export interface PartitionFetchData {
    'partition'?: (number);
    'fetch_offset'?: (number | string | Long);
    /**
     * -1 = not checked.
     */
    'current_leader_epoch'?: (number);
    'partition_max_bytes'?: (number);
    /**
     * The epoch of the last batch a follower holds, for divergence detection (-1 = unknown).
     */
    'last_fetched_epoch'?: (number);
    'log_start_offset'?: (number | string | Long);
}
export interface PartitionFetchData__Output {
    'partition': (number);
    'fetch_offset': (string);
    /**
     * -1 = not checked.
     */
    'current_leader_epoch': (number);
    'partition_max_bytes': (number);
    /**
     * The epoch of the last batch a follower holds, for divergence detection (-1 = unknown).
     */
    'last_fetched_epoch': (number);
    'log_start_offset': (string);
}
//# sourceMappingURL=PartitionFetchData.d.ts.map