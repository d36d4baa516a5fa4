import type { DeleteRecordsTopic as _sluice_v1_DeleteRecordsTopic, DeleteRecordsTopic__Output as _sluice_v1_DeleteRecordsTopic__Output } from '../../sluice/v1/DeleteRecordsTopic.js';
export interface DeleteRecordsRequest {
    'topics'?: (_sluice_v1_DeleteRecordsTopic)[];
    'timeout_ms'?: (number);
}
export interface DeleteRecordsRequest__Output {
    'topics': (_sluice_v1_DeleteRecordsTopic__Output)[];
    'timeout_ms': (number);
}
//# sourceMappingURL=DeleteRecordsRequest.d.ts.map