export interface ConfigSources {
    readonly argv?: readonly string[];
    readonly env?: Readonly<Record<string, string | undefined>>;
    /** Only these camelCase keys are read from the environment (others would be noise). */
    readonly keys: readonly string[];
}
export interface LayeredConfig {
    readonly values: Record<string, unknown>;
    /** Problems found while reading the layers (unreadable file, flag without value, unknown flag). */
    readonly problems: string[];
}
export declare function camelToSnakeUpper(name: string): string;
export declare function kebabToCamel(name: string): string;
export declare function loadConfigLayers(sources: ConfigSources): LayeredConfig;
//# sourceMappingURL=config-layers.d.ts.map