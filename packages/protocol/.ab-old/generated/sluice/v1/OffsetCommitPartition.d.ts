import type { Long } from '@grpc/proto-loader';
export interface OffsetCommitPartition {
    'partition'?: (number);
    /**
     * The next offset to read (last processed + 1).
     */
    'committed_offset'?: (number | string | Long);
    'committed_leader_epoch'?: (number);
    'metadata'?: (string);
}
export interface OffsetCommitPartition__Output {
    'partition': (number);
    /**
     * The next offset to read (last processed + 1).
     */
    'committed_offset': (string);
    'committed_leader_epoch': (number);
    'metadata': (string);
}
//# sourceMappingURL=OffsetCommitPartition.d.ts.map