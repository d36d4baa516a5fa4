export interface SyncGroupResponse {
    'error_code'?: (number);
    'error_message'?: (string);
    'protocol_type'?: (string);
    'protocol_name'?: (string);
    'assignment'?: (Buffer | Uint8Array | string);
}
export interface SyncGroupResponse__Output {
    'error_code': (number);
    'error_message': (string);
    'protocol_type': (string);
    'protocol_name': (string);
    'assignment': (Buffer);
}
//# sourceMappingURL=SyncGroupResponse.d.ts.map