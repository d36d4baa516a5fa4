import type { PartitionProduceData as _sluice_v1_PartitionProduceData, PartitionProduceData__Output as _sluice_v1_PartitionProduceData__Output } from '../../sluice/v1/PartitionProduceData.js';
export interface TopicProduceData {
    'topic'?: (string);
    'partitions'?: (_sluice_v1_PartitionProduceData)[];
}
export interface TopicProduceData__Output {
    'topic': (string);
    'partitions': (_sluice_v1_PartitionProduceData__Output)[];
}
//# sourceMappingURL=TopicProduceData.d.ts.map