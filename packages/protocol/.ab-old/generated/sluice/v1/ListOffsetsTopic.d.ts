import type { ListOffsetsPartition as _sluice_v1_ListOffsetsPartition, ListOffsetsPartition__Output as _sluice_v1_ListOffsetsPartition__Output } from '../../sluice/v1/ListOffsetsPartition.js';
export interface ListOffsetsTopic {
    'topic'?: (string);
    'partitions'?: (_sluice_v1_ListOffsetsPartition)[];
}
export interface ListOffsetsTopic__Output {
    'topic': (string);
    'partitions': (_sluice_v1_ListOffsetsPartition__Output)[];
}
//# sourceMappingURL=ListOffsetsTopic.d.ts.map