import type { PartitionState as _sluice_v1_PartitionState, PartitionState__Output as _sluice_v1_PartitionState__Output } from '../../sluice/v1/PartitionState.js';
import type { TopicConfigEntry as _sluice_v1_TopicConfigEntry, TopicConfigEntry__Output as _sluice_v1_TopicConfigEntry__Output } from '../../sluice/v1/TopicConfigEntry.js';
export interface TopicDescription {
    'name'?: (string);
    'error_code'?: (number);
    'error_message'?: (string);
    'topic_id'?: (string);
    'is_internal'?: (boolean);
    'partitions'?: (_sluice_v1_PartitionState)[];
    'configs'?: (_sluice_v1_TopicConfigEntry)[];
}
export interface TopicDescription__Output {
    'name': (string);
    'error_code': (number);
    'error_message': (string);
    'topic_id': (string);
    'is_internal': (boolean);
    'partitions': (_sluice_v1_PartitionState__Output)[];
    'configs': (_sluice_v1_TopicConfigEntry__Output)[];
}
//# sourceMappingURL=TopicDescription.d.ts.map