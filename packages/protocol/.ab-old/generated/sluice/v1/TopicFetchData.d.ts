import type { PartitionFetchData as _sluice_v1_PartitionFetchData, PartitionFetchData__Output as _sluice_v1_PartitionFetchData__Output } from '../../sluice/v1/PartitionFetchData.js';
export interface TopicFetchData {
    'topic'?: (string);
    'partitions'?: (_sluice_v1_PartitionFetchData)[];
}
export interface TopicFetchData__Output {
    'topic': (string);
    'partitions': (_sluice_v1_PartitionFetchData__Output)[];
}
//# sourceMappingURL=TopicFetchData.d.ts.map