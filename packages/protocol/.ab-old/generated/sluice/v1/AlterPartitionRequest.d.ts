import type { Long } from '@grpc/proto-loader';
export interface AlterPartitionRequest {
    'broker_id'?: (number);
    'broker_epoch'?: (number | string | Long);
    'topic'?: (string);
    'partition'?: (number);
    'leader_epoch'?: (number);
    'partition_epoch'?: (number);
    'new_isr'?: (number)[];
}
export interface AlterPartitionRequest__Output {
    'broker_id': (number);
    'broker_epoch': (string);
    'topic': (string);
    'partition': (number);
    'leader_epoch': (number);
    'partition_epoch': (number);
    'new_isr': (number)[];
}
//# sourceMappingURL=AlterPartitionRequest.d.ts.map