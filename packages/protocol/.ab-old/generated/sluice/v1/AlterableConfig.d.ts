export interface AlterableConfig {
    'name'?: (string);
    'value'?: (string);
    /**
     * "set" or "delete" (back to the default).
     */
    'op'?: (string);
}
export interface AlterableConfig__Output {
    'name': (string);
    'value': (string);
    /**
     * "set" or "delete" (back to the default).
     */
    'op': (string);
}
//# sourceMappingURL=AlterableConfig.d.ts.map