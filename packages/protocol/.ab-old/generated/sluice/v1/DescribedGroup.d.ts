import type { DescribedGroupMember as _sluice_v1_DescribedGroupMember, DescribedGroupMember__Output as _sluice_v1_DescribedGroupMember__Output } from '../../sluice/v1/DescribedGroupMember.js';
export interface DescribedGroup {
    'error_code'?: (number);
    'error_message'?: (string);
    'group_id'?: (string);
    /**
     * Empty, PreparingRebalance, CompletingRebalance, Stable, Dead.
     */
    'state'?: (string);
    'protocol_type'?: (string);
    'protocol_name'?: (string);
    'generation_id'?: (number);
    'leader'?: (string);
    'members'?: (_sluice_v1_DescribedGroupMember)[];
}
export interface DescribedGroup__Output {
    'error_code': (number);
    'error_message': (string);
    'group_id': (string);
    /**
     * Empty, PreparingRebalance, CompletingRebalance, Stable, Dead.
     */
    'state': (string);
    'protocol_type': (string);
    'protocol_name': (string);
    'generation_id': (number);
    'leader': (string);
    'members': (_sluice_v1_DescribedGroupMember__Output)[];
}
//# sourceMappingURL=DescribedGroup.d.ts.map