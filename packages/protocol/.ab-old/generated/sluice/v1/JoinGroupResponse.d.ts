import type { JoinGroupMember as _sluice_v1_JoinGroupMember, JoinGroupMember__Output as _sluice_v1_JoinGroupMember__Output } from '../../sluice/v1/JoinGroupMember.js';
export interface JoinGroupResponse {
    'error_code'?: (number);
    'error_message'?: (string);
    'generation_id'?: (number);
    'protocol_type'?: (string);
    'protocol_name'?: (string);
    'leader'?: (string);
    'member_id'?: (string);
    /**
     * Filled only for the leader: every member with its subscription metadata.
     */
    'members'?: (_sluice_v1_JoinGroupMember)[];
    /**
     * True when a static member got its old assignment back without a rebalance.
     */
    'skip_assignment'?: (boolean);
}
export interface JoinGroupResponse__Output {
    'error_code': (number);
    'error_message': (string);
    'generation_id': (number);
    'protocol_type': (string);
    'protocol_name': (string);
    'leader': (string);
    'member_id': (string);
    /**
     * Filled only for the leader: every member with its subscription metadata.
     */
    'members': (_sluice_v1_JoinGroupMember__Output)[];
    /**
     * True when a static member got its old assignment back without a rebalance.
     */
    'skip_assignment': (boolean);
}
//# sourceMappingURL=JoinGroupResponse.d.ts.map