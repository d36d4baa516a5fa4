export interface DescribeTopicsRequest {
    /**
     * Empty = every topic.
     */
    'names'?: (string)[];
    'include_internal'?: (boolean);
}
export interface DescribeTopicsRequest__Output {
    /**
     * Empty = every topic.
     */
    'names': (string)[];
    'include_internal': (boolean);
}
//# sourceMappingURL=DescribeTopicsRequest.d.ts.map