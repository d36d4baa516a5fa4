import type { PartitionProduceResponse as _sluice_v1_PartitionProduceResponse, PartitionProduceResponse__Output as _sluice_v1_PartitionProduceResponse__Output } from '../../sluice/v1/PartitionProduceResponse.js';
export interface TopicProduceResponse {
    'topic'?: (string);
    'partitions'?: (_sluice_v1_PartitionProduceResponse)[];
}
export interface TopicProduceResponse__Output {
    'topic': (string);
    'partitions': (_sluice_v1_PartitionProduceResponse__Output)[];
}
//# sourceMappingURL=TopicProduceResponse.d.ts.map