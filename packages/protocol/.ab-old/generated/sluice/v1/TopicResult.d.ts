export interface TopicResult {
    'name'?: (string);
    'error_code'?: (number);
    'error_message'?: (string);
}
export interface TopicResult__Output {
    'name': (string);
    'error_code': (number);
    'error_message': (string);
}
//# sourceMappingURL=TopicResult.d.ts.map