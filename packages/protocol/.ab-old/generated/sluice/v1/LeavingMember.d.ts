export interface LeavingMember {
    'member_id'?: (string);
    'group_instance_id'?: (string);
    'reason'?: (string);
}
export interface LeavingMember__Output {
    'member_id': (string);
    'group_instance_id': (string);
    'reason': (string);
}
//# sourceMappingURL=LeavingMember.d.ts.map