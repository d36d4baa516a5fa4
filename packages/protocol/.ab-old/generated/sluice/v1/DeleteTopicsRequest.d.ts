export interface DeleteTopicsRequest {
    'names'?: (string)[];
    'timeout_ms'?: (number);
}
export interface DeleteTopicsRequest__Output {
    'names': (string)[];
    'timeout_ms': (number);
}
//# sourceMappingURL=DeleteTopicsRequest.d.ts.map