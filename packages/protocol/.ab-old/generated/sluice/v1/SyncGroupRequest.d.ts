import type { SyncGroupAssignment as _sluice_v1_SyncGroupAssignment, SyncGroupAssignment__Output as _sluice_v1_SyncGroupAssignment__Output } from '../../sluice/v1/SyncGroupAssignment.js';
export interface SyncGroupRequest {
    'group_id'?: (string);
    'generation_id'?: (number);
    'member_id'?: (string);
    'group_instance_id'?: (string);
    'protocol_type'?: (string);
    'protocol_name'?: (string);
    /**
     * Only the leader sends assignments.
     */
    'assignments'?: (_sluice_v1_SyncGroupAssignment)[];
}
export interface SyncGroupRequest__Output {
    'group_id': (string);
    'generation_id': (number);
    'member_id': (string);
    'group_instance_id': (string);
    'protocol_type': (string);
    'protocol_name': (string);
    /**
     * Only the leader sends assignments.
     */
    'assignments': (_sluice_v1_SyncGroupAssignment__Output)[];
}
//# sourceMappingURL=SyncGroupRequest.d.ts.map