export interface ElectLeadersResult {
    'topic'?: (string);
    'partition'?: (number);
    'error_code'?: (number);
    'error_message'?: (string);
    'leader'?: (number);
}
export interface ElectLeadersResult__Output {
    'topic': (string);
    'partition': (number);
    'error_code': (number);
    'error_message': (string);
    'leader': (number);
}
//# sourceMappingURL=ElectLeadersResult.d.ts.map