import type { OffsetFetchTopic as _sluice_v1_OffsetFetchTopic, OffsetFetchTopic__Output as _sluice_v1_OffsetFetchTopic__Output } from '../../sluice/v1/OffsetFetchTopic.js';
export interface OffsetFetchRequest {
    'group_id'?: (string);
    /**
     * Empty = every topic with a committed offset.
     */
    'topics'?: (_sluice_v1_OffsetFetchTopic)[];
}
export interface OffsetFetchRequest__Output {
    'group_id': (string);
    /**
     * Empty = every topic with a committed offset.
     */
    'topics': (_sluice_v1_OffsetFetchTopic__Output)[];
}
//# sourceMappingURL=OffsetFetchRequest.d.ts.map