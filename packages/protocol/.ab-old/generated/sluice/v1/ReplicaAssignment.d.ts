export interface ReplicaAssignment {
    'partition'?: (number);
    'replicas'?: (number)[];
}
export interface ReplicaAssignment__Output {
    'partition': (number);
    'replicas': (number)[];
}
//# sourceMappingURL=ReplicaAssignment.d.ts.map