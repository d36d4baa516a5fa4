import type { DescribedGroup as _sluice_v1_DescribedGroup, DescribedGroup__Output as _sluice_v1_DescribedGroup__Output } from '../../sluice/v1/DescribedGroup.js';
export interface DescribeGroupsResponse {
    'groups'?: (_sluice_v1_DescribedGroup)[];
}
export interface DescribeGroupsResponse__Output {
    'groups': (_sluice_v1_DescribedGroup__Output)[];
}
//# sourceMappingURL=DescribeGroupsResponse.d.ts.map