export interface DescribedGroupMember {
    'member_id'?: (string);
    'group_instance_id'?: (string);
    'client_id'?: (string);
    'client_host'?: (string);
    'metadata'?: (Buffer | Uint8Array | string);
    'assignment'?: (Buffer | Uint8Array | string);
}
export interface DescribedGroupMember__Output {
    'member_id': (string);
    'group_instance_id': (string);
    'client_id': (string);
    'client_host': (string);
    'metadata': (Buffer);
    'assignment': (Buffer);
}
//# sourceMappingURL=DescribedGroupMember.d.ts.map