export interface PartitionProduceData {
    'partition'?: (number);
    /**
     * One or more Kafka RecordBatch v2 (magic 2) batches back to back, exactly as Kafka's wire
     * and disk format; baseOffset and partitionLeaderEpoch are assigned by the leader.
     */
    'records'?: (Buffer | Uint8Array | string);
}
export interface PartitionProduceData__Output {
    'partition': (number);
    /**
     * One or more Kafka RecordBatch v2 (magic 2) batches back to back, exactly as Kafka's wire
     * and disk format; baseOffset and partitionLeaderEpoch are assigned by the leader.
     */
    'records': (Buffer);
}
//# sourceMappingURL=PartitionProduceData.d.ts.map