import type { ReplicaAssignment as _sluice_v1_ReplicaAssignment, ReplicaAssignment__Output as _sluice_v1_ReplicaAssignment__Output } from '../../sluice/v1/ReplicaAssignment.js';
export interface CreatableTopic {
    'name'?: (string);
    /**
     * -1 = the cluster default.
     */
    'num_partitions'?: (number);
    'replication_factor'?: (number);
    /**
     * Explicit assignment; when set, num_partitions and replication_factor must be -1.
     */
    'assignments'?: (_sluice_v1_ReplicaAssignment)[];
    'configs'?: ({
        [key: string]: string;
    });
}
export interface CreatableTopic__Output {
    'name': (string);
    /**
     * -1 = the cluster default.
     */
    'num_partitions': (number);
    'replication_factor': (number);
    /**
     * Explicit assignment; when set, num_partitions and replication_factor must be -1.
     */
    'assignments': (_sluice_v1_ReplicaAssignment__Output)[];
    'configs': ({
        [key: string]: string;
    });
}
//# sourceMappingURL=CreatableTopic.d.ts.map