import type { Long } from '@grpc/proto-loader';
export interface ListOffsetsPartition {
    'partition'?: (number);
    /**
     * -1 = latest, -2 = earliest, -3 = max timestamp, otherwise a timestamp in ms: the first offset
     * whose record timestamp is >= it.
     */
    'timestamp'?: (number | string | Long);
    'current_leader_epoch'?: (number);
}
export interface ListOffsetsPartition__Output {
    'partition': (number);
    /**
     * -1 = latest, -2 = earliest, -3 = max timestamp, otherwise a timestamp in ms: the first offset
     * whose record timestamp is >= it.
     */
    'timestamp': (string);
    'current_leader_epoch': (number);
}
//# sourceMappingURL=ListOffsetsPartition.d.ts.map