import type { ListedGroup as _sluice_v1_ListedGroup, ListedGroup__Output as _sluice_v1_ListedGroup__Output } from '../../sluice/v1/ListedGroup.js';
export interface ListGroupsResponse {
    'error_code'?: (number);
    'error_message'?: (string);
    'groups'?: (_sluice_v1_ListedGroup)[];
}
export interface ListGroupsResponse__Output {
    'error_code': (number);
    'error_message': (string);
    'groups': (_sluice_v1_ListedGroup__Output)[];
}
//# sourceMappingURL=ListGroupsResponse.d.ts.map