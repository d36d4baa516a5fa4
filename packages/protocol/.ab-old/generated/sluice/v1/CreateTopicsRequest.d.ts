import type { CreatableTopic as _sluice_v1_CreatableTopic, CreatableTopic__Output as _sluice_v1_CreatableTopic__Output } from '../../sluice/v1/CreatableTopic.js';
export interface CreateTopicsRequest {
    'topics'?: (_sluice_v1_CreatableTopic)[];
    'validate_only'?: (boolean);
    'timeout_ms'?: (number);
}
export interface CreateTopicsRequest__Output {
    'topics': (_sluice_v1_CreatableTopic__Output)[];
    'validate_only': (boolean);
    'timeout_ms': (number);
}
//# sourceMappingURL=CreateTopicsRequest.d.ts.map