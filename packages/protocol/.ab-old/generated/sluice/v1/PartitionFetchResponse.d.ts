import type { EpochEndOffset as _sluice_v1_EpochEndOffset, EpochEndOffset__Output as _sluice_v1_EpochEndOffset__Output } from '../../sluice/v1/EpochEndOffset.js';
import type { Long } from '@grpc/proto-loader';
export interface PartitionFetchResponse {
    'partition'?: (number);
    'error_code'?: (number);
    'error_message'?: (string);
    'high_watermark'?: (number | string | Long);
    'last_stable_offset'?: (number | string | Long);
    'log_start_offset'?: (number | string | Long);
    /**
     * The leader's log end offset, so OFFSET_OUT_OF_RANGE tells the valid range.
     */
    'log_end_offset'?: (number | string | Long);
    /**
     * Whole stored RecordBatch v2 batches, starting with the batch that contains fetch_offset.
     */
    'records'?: (Buffer | Uint8Array | string);
    /**
     * Set for followers whose log diverged from the leader's (KIP-101/279/595).
     */
    'diverging_epoch'?: (_sluice_v1_EpochEndOffset | null);
    'leader_epoch'?: (number);
}
export interface PartitionFetchResponse__Output {
    'partition': (number);
    'error_code': (number);
    'error_message': (string);
    'high_watermark': (string);
    'last_stable_offset': (string);
    'log_start_offset': (string);
    /**
     * The leader's log end offset, so OFFSET_OUT_OF_RANGE tells the valid range.
     */
    'log_end_offset': (string);
    /**
     * Whole stored RecordBatch v2 batches, starting with the batch that contains fetch_offset.
     */
    'records': (Buffer);
    /**
     * Set for followers whose log diverged from the leader's (KIP-101/279/595).
     */
    'diverging_epoch': (_sluice_v1_EpochEndOffset__Output | null);
    'leader_epoch': (number);
}
//# sourceMappingURL=PartitionFetchResponse.d.ts.map