import type { Long } from '@grpc/proto-loader';
export interface DeleteRecordsPartitionResponse {
    'partition'?: (number);
    'error_code'?: (number);
    'error_message'?: (string);
    'low_watermark'?: (number | string | Long);
}
export interface DeleteRecordsPartitionResponse__Output {
    'partition': (number);
    'error_code': (number);
    'error_message': (string);
    'low_watermark': (string);
}
//# sourceMappingURL=DeleteRecordsPartitionResponse.d.ts.map