import type { PartitionFetchResponse as _sluice_v1_PartitionFetchResponse, PartitionFetchResponse__Output as _sluice_v1_PartitionFetchResponse__Output } from '../../sluice/v1/PartitionFetchResponse.js';
export interface TopicFetchResponse {
    'topic'?: (string);
    'partitions'?: (_sluice_v1_PartitionFetchResponse)[];
}
export interface TopicFetchResponse__Output {
    'topic': (string);
    'partitions': (_sluice_v1_PartitionFetchResponse__Output)[];
}
//# sourceMappingURL=TopicFetchResponse.d.ts.map