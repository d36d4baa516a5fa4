import type { ListOffsetsTopicResponse as _sluice_v1_ListOffsetsTopicResponse, ListOffsetsTopicResponse__Output as _sluice_v1_ListOffsetsTopicResponse__Output } from '../../sluice/v1/ListOffsetsTopicResponse.js';
export interface ListOffsetsResponse {
    'topics'?: (_sluice_v1_ListOffsetsTopicResponse)[];
}
export interface ListOffsetsResponse__Output {
    'topics': (_sluice_v1_ListOffsetsTopicResponse__Output)[];
}
//# sourceMappingURL=ListOffsetsResponse.d.ts.map