export interface GroupResult {
    'group_id'?: (string);
    'error_code'?: (number);
    'error_message'?: (string);
}
export interface GroupResult__Output {
    'group_id': (string);
    'error_code': (number);
    'error_message': (string);
}
//# sourceMappingURL=GroupResult.d.ts.map