import type { Long } from '@grpc/proto-loader';
export interface DeleteRecordsPartition {
    'partition'?: (number);
    /**
     * Records below this offset are deleted; -1 = up to the high watermark.
     */
    'offset'?: (number | string | Long);
}
export interface DeleteRecordsPartition__Output {
    'partition': (number);
    /**
     * Records below this offset are deleted; -1 = up to the high watermark.
     */
    'offset': (string);
}
//# sourceMappingURL=DeleteRecordsPartition.d.ts.map