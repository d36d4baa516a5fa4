export interface JoinGroupMember {
    'member_id'?: (string);
    'group_instance_id'?: (string);
    'metadata'?: (Buffer | Uint8Array | string);
    'client_id'?: (string);
    'client_host'?: (string);
}
export interface JoinGroupMember__Output {
    'member_id': (string);
    'group_instance_id': (string);
    'metadata': (Buffer);
    'client_id': (string);
    'client_host': (string);
}
//# sourceMappingURL=JoinGroupMember.d.ts.map