import type { OffsetCommitTopicResponse as _sluice_v1_OffsetCommitTopicResponse, OffsetCommitTopicResponse__Output as _sluice_v1_OffsetCommitTopicResponse__Output } from '../../sluice/v1/OffsetCommitTopicResponse.js';
export interface OffsetCommitResponse {
    'error_code'?: (number);
    'error_message'?: (string);
    'topics'?: (_sluice_v1_OffsetCommitTopicResponse)[];
}
export interface OffsetCommitResponse__Output {
    'error_code': (number);
    'error_message': (string);
    'topics': (_sluice_v1_OffsetCommitTopicResponse__Output)[];
}
//# sourceMappingURL=OffsetCommitResponse.d.ts.map