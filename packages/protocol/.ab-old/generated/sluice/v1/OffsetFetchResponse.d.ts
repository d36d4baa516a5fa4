import type { OffsetFetchTopicResponse as _sluice_v1_OffsetFetchTopicResponse, OffsetFetchTopicResponse__Output as _sluice_v1_OffsetFetchTopicResponse__Output } from '../../sluice/v1/OffsetFetchTopicResponse.js';
export interface OffsetFetchResponse {
    'error_code'?: (number);
    'error_message'?: (string);
    'topics'?: (_sluice_v1_OffsetFetchTopicResponse)[];
}
export interface OffsetFetchResponse__Output {
    'error_code': (number);
    'error_message': (string);
    'topics': (_sluice_v1_OffsetFetchTopicResponse__Output)[];
}
//# sourceMappingURL=OffsetFetchResponse.d.ts.map