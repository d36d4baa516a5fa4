export interface MemberResult {
    'member_id'?: (string);
    'group_instance_id'?: (string);
    'error_code'?: (number);
    'error_message'?: (string);
}
export interface MemberResult__Output {
    'member_id': (string);
    'group_instance_id': (string);
    'error_code': (number);
    'error_message': (string);
}
//# sourceMappingURL=MemberResult.d.ts.map