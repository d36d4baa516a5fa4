import type { TopicResult as _sluice_v1_TopicResult, TopicResult__Output as _sluice_v1_TopicResult__Output } from '../../sluice/v1/TopicResult.js';
export interface DeleteTopicsResponse {
    'topics'?: (_sluice_v1_TopicResult)[];
}
export interface DeleteTopicsResponse__Output {
    'topics': (_sluice_v1_TopicResult__Output)[];
}
//# sourceMappingURL=DeleteTopicsResponse.d.ts.map