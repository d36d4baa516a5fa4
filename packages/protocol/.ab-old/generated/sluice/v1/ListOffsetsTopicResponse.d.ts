import type { ListOffsetsPartitionResponse as _sluice_v1_ListOffsetsPartitionResponse, ListOffsetsPartitionResponse__Output as _sluice_v1_ListOffsetsPartitionResponse__Output } from '../../sluice/v1/ListOffsetsPartitionResponse.js';
export interface ListOffsetsTopicResponse {
    'topic'?: (string);
    'partitions'?: (_sluice_v1_ListOffsetsPartitionResponse)[];
}
export interface ListOffsetsTopicResponse__Output {
    'topic': (string);
    'partitions': (_sluice_v1_ListOffsetsPartitionResponse__Output)[];
}
//# sourceMappingURL=ListOffsetsTopicResponse.d.ts.map