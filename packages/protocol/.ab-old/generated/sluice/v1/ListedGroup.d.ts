export interface ListedGroup {
    'group_id'?: (string);
    'protocol_type'?: (string);
    'state'?: (string);
}
export interface ListedGroup__Output {
    'group_id': (string);
    'protocol_type': (string);
    'state': (string);
}
//# sourceMappingURL=ListedGroup.d.ts.map