export interface DescribeGroupsRequest {
    'group_ids'?: (string)[];
}
export interface DescribeGroupsRequest__Output {
    'group_ids': (string)[];
}
//# sourceMappingURL=DescribeGroupsRequest.d.ts.map