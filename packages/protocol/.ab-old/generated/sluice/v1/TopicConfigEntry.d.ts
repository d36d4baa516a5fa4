export interface TopicConfigEntry {
    'name'?: (string);
    'value'?: (string);
    /**
     * "default" or "topic" (a per-topic override stored under /config/topics/<topic>).
     */
    'source'?: (string);
}
export interface TopicConfigEntry__Output {
    'name': (string);
    'value': (string);
    /**
     * "default" or "topic" (a per-topic override stored under /config/topics/<topic>).
     */
    'source': (string);
}
//# sourceMappingURL=TopicConfigEntry.d.ts.map