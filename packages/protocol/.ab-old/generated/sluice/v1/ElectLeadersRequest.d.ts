import type { TopicPartitions as _sluice_v1_TopicPartitions, TopicPartitions__Output as _sluice_v1_TopicPartitions__Output } from '../../sluice/v1/TopicPartitions.js';
export interface ElectLeadersRequest {
    /**
     * 0 = preferred, 1 = unclean.
     */
    'election_type'?: (number);
    /**
     * Empty = every partition.
     */
    'partitions'?: (_sluice_v1_TopicPartitions)[];
}
export interface ElectLeadersRequest__Output {
    /**
     * 0 = preferred, 1 = unclean.
     */
    'election_type': (number);
    /**
     * Empty = every partition.
     */
    'partitions': (_sluice_v1_TopicPartitions__Output)[];
}
//# sourceMappingURL=ElectLeadersRequest.d.ts.map