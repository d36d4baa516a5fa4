export interface HeartbeatResponse {
    'error_code'?: (number);
    'error_message'?: (string);
}
export interface HeartbeatResponse__Output {
    'error_code': (number);
    'error_message': (string);
}
//# sourceMappingURL=HeartbeatResponse.d.ts.map