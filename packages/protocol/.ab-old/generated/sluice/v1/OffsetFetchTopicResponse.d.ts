import type { OffsetFetchPartitionResponse as _sluice_v1_OffsetFetchPartitionResponse, OffsetFetchPartitionResponse__Output as _sluice_v1_OffsetFetchPartitionResponse__Output } from '../../sluice/v1/OffsetFetchPartitionResponse.js';
export interface OffsetFetchTopicResponse {
    'topic'?: (string);
    'partitions'?: (_sluice_v1_OffsetFetchPartitionResponse)[];
}
export interface OffsetFetchTopicResponse__Output {
    'topic': (string);
    'partitions': (_sluice_v1_OffsetFetchPartitionResponse__Output)[];
}
//# sourceMappingURL=OffsetFetchTopicResponse.d.ts.map