export interface MetadataRequest {
    /**
     * Empty = every topic.
     */
    'topics'?: (string)[];
    'include_internal'?: (boolean);
}
export interface MetadataRequest__Output {
    /**
     * Empty = every topic.
     */
    'topics': (string)[];
    'include_internal': (boolean);
}
//# sourceMappingURL=MetadataRequest.d.ts.map