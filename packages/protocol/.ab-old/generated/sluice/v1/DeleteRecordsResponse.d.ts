import type { DeleteRecordsTopicResponse as _sluice_v1_DeleteRecordsTopicResponse, DeleteRecordsTopicResponse__Output as _sluice_v1_DeleteRecordsTopicResponse__Output } from '../../sluice/v1/DeleteRecordsTopicResponse.js';
export interface DeleteRecordsResponse {
    'topics'?: (_sluice_v1_DeleteRecordsTopicResponse)[];
}
export interface DeleteRecordsResponse__Output {
    'topics': (_sluice_v1_DeleteRecordsTopicResponse__Output)[];
}
//# sourceMappingURL=DeleteRecordsResponse.d.ts.map