import type { GroupResult as _sluice_v1_GroupResult, GroupResult__Output as _sluice_v1_GroupResult__Output } from '../../sluice/v1/GroupResult.js';
export interface DeleteGroupsResponse {
    'results'?: (_sluice_v1_GroupResult)[];
}
export interface DeleteGroupsResponse__Output {
    'results': (_sluice_v1_GroupResult__Output)[];
}
//# sourceMappingURL=DeleteGroupsResponse.d.ts.map