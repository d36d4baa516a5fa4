import type { MemberResult as _sluice_v1_MemberResult, MemberResult__Output as _sluice_v1_MemberResult__Output } from '../../sluice/v1/MemberResult.js';
export interface LeaveGroupResponse {
    'error_code'?: (number);
    'error_message'?: (string);
    'members'?: (_sluice_v1_MemberResult)[];
}
export interface LeaveGroupResponse__Output {
    'error_code': (number);
    'error_message': (string);
    'members': (_sluice_v1_MemberResult__Output)[];
}
//# sourceMappingURL=LeaveGroupResponse.d.ts.map