export interface DeleteGroupsRequest {
    'group_ids'?: (string)[];
}
export interface DeleteGroupsRequest__Output {
    'group_ids': (string)[];
}
//# sourceMappingURL=DeleteGroupsRequest.d.ts.map