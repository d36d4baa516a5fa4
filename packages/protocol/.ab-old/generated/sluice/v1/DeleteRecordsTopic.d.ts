import type { DeleteRecordsPartition as _sluice_v1_DeleteRecordsPartition, DeleteRecordsPartition__Output as _sluice_v1_DeleteRecordsPartition__Output } from '../../sluice/v1/DeleteRecordsPartition.js';
export interface DeleteRecordsTopic {
    'topic'?: (string);
    'partitions'?: (_sluice_v1_DeleteRecordsPartition)[];
}
export interface DeleteRecordsTopic__Output {
    'topic': (string);
    'partitions': (_sluice_v1_DeleteRecordsPartition__Output)[];
}
//# sourceMappingURL=DeleteRecordsTopic.d.ts.map