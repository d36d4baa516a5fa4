import type { ReplicaAssignment as _sluice_v1_ReplicaAssignment, ReplicaAssignment__Output as _sluice_v1_ReplicaAssignment__Output } from '../../sluice/v1/ReplicaAssignment.js';
export interface CreatePartitionsTopic {
    'name'?: (string);
    /**
     * The new total number of partitions.
     */
    'count'?: (number);
    /**
     * Optional assignment for the new partitions only.
     */
    'assignments'?: (_sluice_v1_ReplicaAssignment)[];
}
export interface CreatePartitionsTopic__Output {
    'name': (string);
    /**
     * The new total number of partitions.
     */
    'count': (number);
    /**
     * Optional assignment for the new partitions only.
     */
    'assignments': (_sluice_v1_ReplicaAssignment__Output)[];
}
//# sourceMappingURL=CreatePartitionsTopic.d.ts.map