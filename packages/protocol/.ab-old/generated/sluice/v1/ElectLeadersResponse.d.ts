import type { ElectLeadersResult as _sluice_v1_ElectLeadersResult, ElectLeadersResult__Output as _sluice_v1_ElectLeadersResult__Output } from '../../sluice/v1/ElectLeadersResult.js';
export interface ElectLeadersResponse {
    'results'?: (_sluice_v1_ElectLeadersResult)[];
}
export interface ElectLeadersResponse__Output {
    'results': (_sluice_v1_ElectLeadersResult__Output)[];
}
//# sourceMappingURL=ElectLeadersResponse.d.ts.map