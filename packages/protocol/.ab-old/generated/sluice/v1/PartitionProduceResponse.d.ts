import type { Long } from '@grpc/proto-loader';
export interface PartitionProduceResponse {
    'partition'?: (number);
    'error_code'?: (number);
    'error_message'?: (string);
    /**
     * Offset assigned to the first record of the first batch.
     */
    'base_offset'?: (number | string | Long);
    /**
     * Broker time of the append when the topic uses LogAppendTime, else -1.
     */
    'log_append_time_ms'?: (number | string | Long);
    'log_start_offset'?: (number | string | Long);
}
export interface PartitionProduceResponse__Output {
    'partition': (number);
    'error_code': (number);
    'error_message': (string);
    /**
     * Offset assigned to the first record of the first batch.
     */
    'base_offset': (string);
    /**
     * Broker time of the append when the topic uses LogAppendTime, else -1.
     */
    'log_append_time_ms': (string);
    'log_start_offset': (string);
}
//# sourceMappingURL=PartitionProduceResponse.d.ts.map