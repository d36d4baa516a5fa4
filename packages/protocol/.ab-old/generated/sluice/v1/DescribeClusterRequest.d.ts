export interface DescribeClusterRequest {
}
export interface DescribeClusterRequest__Output {
}
//# sourceMappingURL=DescribeClusterRequest.d.ts.map