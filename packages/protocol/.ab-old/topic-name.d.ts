export declare const TOPIC_NAME_MAX_LENGTH = 249;
/** Returns why the name is invalid, or undefined. */
export declare function topicNameProblem(name: string): string | undefined;
export declare function assertValidTopicName(name: string): void;
export declare function isInternalTopic(name: string): boolean;
//# sourceMappingURL=topic-name.d.ts.map