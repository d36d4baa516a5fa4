import type { OffsetCommitTopic as _sluice_v1_OffsetCommitTopic, OffsetCommitTopic__Output as _sluice_v1_OffsetCommitTopic__Output } from '../../sluice/v1/OffsetCommitTopic.js';
export interface OffsetCommitRequest {
    'group_id'?: (string);
    /**
     * -1 with an empty member id commits for an empty group (admin tools: reset-offsets).
     */
    'generation_id'?: (number);
    'member_id'?: (string);
    'group_instance_id'?: (string);
    'topics'?: (_sluice_v1_OffsetCommitTopic)[];
}
export interface OffsetCommitRequest__Output {
    'group_id': (string);
    /**
     * -1 with an empty member id commits for an empty group (admin tools: reset-offsets).
     */
    'generation_id': (number);
    'member_id': (string);
    'group_instance_id': (string);
    'topics': (_sluice_v1_OffsetCommitTopic__Output)[];
}
//# sourceMappingURL=OffsetCommitRequest.d.ts.map