import type { Long } from '@grpc/proto-loader';
export interface EpochEndOffset {
    'epoch'?: (number);
    'end_offset'?: (number | string | Long);
}
export interface EpochEndOffset__Output {
    'epoch': (number);
    'end_offset': (string);
}
//# sourceMappingURL=EpochEndOffset.d.ts.map