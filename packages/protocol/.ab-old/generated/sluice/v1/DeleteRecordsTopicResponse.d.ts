import type { DeleteRecordsPartitionResponse as _sluice_v1_DeleteRecordsPartitionResponse, DeleteRecordsPartitionResponse__Output as _sluice_v1_DeleteRecordsPartitionResponse__Output } from '../../sluice/v1/DeleteRecordsPartitionResponse.js';
export interface DeleteRecordsTopicResponse {
    'topic'?: (string);
    'partitions'?: (_sluice_v1_DeleteRecordsPartitionResponse)[];
}
export interface DeleteRecordsTopicResponse__Output {
    'topic': (string);
    'partitions': (_sluice_v1_DeleteRecordsPartitionResponse__Output)[];
}
//# sourceMappingURL=DeleteRecordsTopicResponse.d.ts.map