import type { TopicDescription as _sluice_v1_TopicDescription, TopicDescription__Output as _sluice_v1_TopicDescription__Output } from '../../sluice/v1/TopicDescription.js';
export interface DescribeTopicsResponse {
    'topics'?: (_sluice_v1_TopicDescription)[];
}
export interface DescribeTopicsResponse__Output {
    'topics': (_sluice_v1_TopicDescription__Output)[];
}
//# sourceMappingURL=DescribeTopicsResponse.d.ts.map