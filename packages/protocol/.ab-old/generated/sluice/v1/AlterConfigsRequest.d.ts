import type { AlterConfigsResource as _sluice_v1_AlterConfigsResource, AlterConfigsResource__Output as _sluice_v1_AlterConfigsResource__Output } from '../../sluice/v1/AlterConfigsResource.js';
export interface AlterConfigsRequest {
    'resources'?: (_sluice_v1_AlterConfigsResource)[];
    'validate_only'?: (boolean);
}
export interface AlterConfigsRequest__Output {
    'resources': (_sluice_v1_AlterConfigsResource__Output)[];
    'validate_only': (boolean);
}
//# sourceMappingURL=AlterConfigsRequest.d.ts.map