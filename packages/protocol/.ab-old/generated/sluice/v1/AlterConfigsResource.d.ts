import type { AlterableConfig as _sluice_v1_AlterableConfig, AlterableConfig__Output as _sluice_v1_AlterableConfig__Output } from '../../sluice/v1/AlterableConfig.js';
export interface AlterConfigsResource {
    'topic'?: (string);
    'configs'?: (_sluice_v1_AlterableConfig)[];
}
export interface AlterConfigsResource__Output {
    'topic': (string);
    'configs': (_sluice_v1_AlterableConfig__Output)[];
}
//# sourceMappingURL=AlterConfigsResource.d.ts.map