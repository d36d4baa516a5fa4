import type { PartitionState as _sluice_v1_PartitionState, PartitionState__Output as _sluice_v1_PartitionState__Output } from '../../sluice/v1/PartitionState.js';
export interface AlterPartitionResponse {
    'error_code'?: (number);
    'error_message'?: (string);
    'state'?: (_sluice_v1_PartitionState | null);
}
export interface AlterPartitionResponse__Output {
    'error_code': (number);
    'error_message': (string);
    'state': (_sluice_v1_PartitionState__Output | null);
}
//# sourceMappingURL=AlterPartitionResponse.d.ts.map