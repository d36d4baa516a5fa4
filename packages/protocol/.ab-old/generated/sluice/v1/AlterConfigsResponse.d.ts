import type { TopicResult as _sluice_v1_TopicResult, TopicResult__Output as _sluice_v1_TopicResult__Output } from '../../sluice/v1/TopicResult.js';
export interface AlterConfigsResponse {
    'resources'?: (_sluice_v1_TopicResult)[];
}
export interface AlterConfigsResponse__Output {
    'resources': (_sluice_v1_TopicResult__Output)[];
}
//# sourceMappingURL=AlterConfigsResponse.d.ts.map