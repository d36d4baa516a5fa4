export interface SessionError {
    'error_code'?: (number);
    'error_message'?: (string);
}
export interface SessionError__Output {
    'error_code': (number);
    'error_message': (string);
}
//# sourceMappingURL=SessionError.d.ts.map