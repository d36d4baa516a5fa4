import type { PartitionMetadata as _sluice_v1_PartitionMetadata, PartitionMetadata__Output as _sluice_v1_PartitionMetadata__Output } from '../../sluice/v1/PartitionMetadata.js';
export interface TopicMetadata {
    'error_code'?: (number);
    'error_message'?: (string);
    'name'?: (string);
    'topic_id'?: (string);
    'is_internal'?: (boolean);
    'partitions'?: (_sluice_v1_PartitionMetadata)[];
}
export interface TopicMetadata__Output {
    'error_code': (number);
    'error_message': (string);
    'name': (string);
    'topic_id': (string);
    'is_internal': (boolean);
    'partitions': (_sluice_v1_PartitionMetadata__Output)[];
}
//# sourceMappingURL=TopicMetadata.d.ts.map