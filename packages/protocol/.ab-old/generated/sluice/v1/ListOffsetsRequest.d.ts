import type { ListOffsetsTopic as _sluice_v1_ListOffsetsTopic, ListOffsetsTopic__Output as _sluice_v1_ListOffsetsTopic__Output } from '../../sluice/v1/ListOffsetsTopic.js';
export interface ListOffsetsRequest {
    'replica_id'?: (number);
    'isolation_level'?: (number);
    'topics'?: (_sluice_v1_ListOffsetsTopic)[];
}
export interface ListOffsetsRequest__Output {
    'replica_id': (number);
    'isolation_level': (number);
    'topics': (_sluice_v1_ListOffsetsTopic__Output)[];
}
//# sourceMappingURL=ListOffsetsRequest.d.ts.map