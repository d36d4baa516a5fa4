export interface PartitionMetadata {
    'error_code'?: (number);
    'partition'?: (number);
    'leader'?: (number);
    'leader_epoch'?: (number);
    'replicas'?: (number)[];
    'isr'?: (number)[];
    'offline_replicas'?: (number)[];
}
export interface PartitionMetadata__Output {
    'error_code': (number);
    'partition': (number);
    'leader': (number);
    'leader_epoch': (number);
    'replicas': (number)[];
    'isr': (number)[];
    'offline_replicas': (number)[];
}
//# sourceMappingURL=PartitionMetadata.d.ts.map