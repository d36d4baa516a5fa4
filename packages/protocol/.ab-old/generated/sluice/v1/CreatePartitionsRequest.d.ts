import type { CreatePartitionsTopic as _sluice_v1_CreatePartitionsTopic, CreatePartitionsTopic__Output as _sluice_v1_CreatePartitionsTopic__Output } from '../../sluice/v1/CreatePartitionsTopic.js';
export interface CreatePartitionsRequest {
    'topics'?: (_sluice_v1_CreatePartitionsTopic)[];
    'validate_only'?: (boolean);
    'timeout_ms'?: (number);
}
export interface CreatePartitionsRequest__Output {
    'topics': (_sluice_v1_CreatePartitionsTopic__Output)[];
    'validate_only': (boolean);
    'timeout_ms': (number);
}
//# sourceMappingURL=CreatePartitionsRequest.d.ts.map