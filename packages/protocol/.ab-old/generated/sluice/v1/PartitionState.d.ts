/**
 * The state of one partition as the controller sees it (Kafka's
 * /brokers/topics/<t>/partitions/<p>/state plus the replica assignment).
 */
export interface PartitionState {
    'topic'?: (string);
    'partition'?: (number);
    /**
     * -1 when the partition has no leader (offline).
     */
    'leader'?: (number);
    'leader_epoch'?: (number);
    /**
     * Assignment order; the first replica is the preferred leader.
     */
    'replicas'?: (number)[];
    'isr'?: (number)[];
    'controller_epoch'?: (number);
    /**
     * Bumped on every change of this partition's state (leader, ISR or replicas).
     */
    'partition_epoch'?: (number);
    'topic_id'?: (string);
}
/**
 * The state of one partition as the controller sees it (Kafka's
 * /brokers/topics/<t>/partitions/<p>/state plus the replica assignment).
 */
export interface PartitionState__Output {
    'topic': (string);
    'partition': (number);
    /**
     * -1 when the partition has no leader (offline).
     */
    'leader': (number);
    'leader_epoch': (number);
    /**
     * Assignment order; the first replica is the preferred leader.
     */
    'replicas': (number)[];
    'isr': (number)[];
    'controller_epoch': (number);
    /**
     * Bumped on every change of this partition's state (leader, ISR or replicas).
     */
    'partition_epoch': (number);
    'topic_id': (string);
}
//# sourceMappingURL=PartitionState.d.ts.map