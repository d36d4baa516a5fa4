import type { OffsetCommitPartition as _sluice_v1_OffsetCommitPartition, OffsetCommitPartition__Output as _sluice_v1_OffsetCommitPartition__Output } from '../../sluice/v1/OffsetCommitPartition.js';
export interface OffsetCommitTopic {
    'topic'?: (string);
    'partitions'?: (_sluice_v1_OffsetCommitPartition)[];
}
export interface OffsetCommitTopic__Output {
    'topic': (string);
    'partitions': (_sluice_v1_OffsetCommitPartition__Output)[];
}
//# sourceMappingURL=OffsetCommitTopic.d.ts.map