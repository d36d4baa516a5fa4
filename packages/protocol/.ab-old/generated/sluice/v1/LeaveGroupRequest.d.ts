import type { LeavingMember as _sluice_v1_LeavingMember, LeavingMember__Output as _sluice_v1_LeavingMember__Output } from '../../sluice/v1/LeavingMember.js';
export interface LeaveGroupRequest {
    'group_id'?: (string);
    'members'?: (_sluice_v1_LeavingMember)[];
}
export interface LeaveGroupRequest__Output {
    'group_id': (string);
    'members': (_sluice_v1_LeavingMember__Output)[];
}
//# sourceMappingURL=LeaveGroupRequest.d.ts.map