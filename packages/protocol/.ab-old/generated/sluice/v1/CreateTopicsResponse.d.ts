import type { CreatableTopicResult as _sluice_v1_CreatableTopicResult, CreatableTopicResult__Output as _sluice_v1_CreatableTopicResult__Output } from '../../sluice/v1/CreatableTopicResult.js';
export interface CreateTopicsResponse {
    'topics'?: (_sluice_v1_CreatableTopicResult)[];
}
export interface CreateTopicsResponse__Output {
    'topics': (_sluice_v1_CreatableTopicResult__Output)[];
}
//# sourceMappingURL=CreateTopicsResponse.d.ts.map