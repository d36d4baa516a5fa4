export interface HeartbeatRequest {
    'group_id'?: (string);
    'generation_id'?: (number);
    'member_id'?: (string);
    'group_instance_id'?: (string);
}
export interface HeartbeatRequest__Output {
    'group_id': (string);
    'generation_id': (number);
    'member_id': (string);
    'group_instance_id': (string);
}
//# sourceMappingURL=HeartbeatRequest.d.ts.map