export type CleanupPolicy = 'delete' | 'compact' | 'compact,delete';
export type FlushMode = 'replication' | 'fsync';
export type TimestampType = 'CreateTime' | 'LogAppendTime';
export interface TopicConfig {
    'segment.bytes': number;
    'segment.ms': number;
    'segment.index.bytes': number;
    'index.interval.bytes': number;
    'retention.ms': number;
    'retention.bytes': number;
    'max.message.bytes': number;
    'cleanup.policy': CleanupPolicy;
    'delete.retention.ms': number;
    'min.insync.replicas': number;
    'unclean.leader.election.enable': boolean;
    'message.timestamp.type': TimestampType;
    'flush': FlushMode;
}
export type TopicConfigName = keyof TopicConfig;
interface ConfigSpec<T> {
    readonly default: T;
    readonly doc: string;
    parse(text: string): Parsed<T>;
}
type Parsed<T> = {
    ok: true;
    value: T;
} | {
    ok: false;
    error: string;
};
export declare const TOPIC_CONFIG_SPECS: {
    readonly [K in TopicConfigName]: ConfigSpec<TopicConfig[K]>;
};
export declare const TOPIC_CONFIG_NAMES: TopicConfigName[];
export declare function defaultTopicConfig(): TopicConfig;
/**
 * Validates overrides (string values, as stored and sent on the wire). Throws INVALID_CONFIG
 * listing every bad entry; returns the normalised string map.
 */
export declare function validateTopicConfigOverrides(overrides: Readonly<Record<string, string>>): Record<string, string>;
/** The effective config: defaults with validated overrides applied. */
export declare function effectiveTopicConfig(overrides: Readonly<Record<string, string>>): TopicConfig;
export {};
//# sourceMappingURL=topic-config.d.ts.map