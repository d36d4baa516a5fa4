import type { OffsetCommitPartitionResponse as _sluice_v1_OffsetCommitPartitionResponse, OffsetCommitPartitionResponse__Output as _sluice_v1_OffsetCommitPartitionResponse__Output } from '../../sluice/v1/OffsetCommitPartitionResponse.js';
export interface OffsetCommitTopicResponse {
    'topic'?: (string);
    'partitions'?: (_sluice_v1_OffsetCommitPartitionResponse)[];
}
export interface OffsetCommitTopicResponse__Output {
    'topic': (string);
    'partitions': (_sluice_v1_OffsetCommitPartitionResponse__Output)[];
}
//# sourceMappingURL=OffsetCommitTopicResponse.d.ts.map