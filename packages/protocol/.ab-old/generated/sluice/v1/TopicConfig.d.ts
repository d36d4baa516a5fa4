import type { TopicConfigEntry as _sluice_v1_TopicConfigEntry, TopicConfigEntry__Output as _sluice_v1_TopicConfigEntry__Output } from '../../sluice/v1/TopicConfigEntry.js';
export interface TopicConfig {
    'topic'?: (string);
    'topic_id'?: (string);
    'entries'?: (_sluice_v1_TopicConfigEntry)[];
}
export interface TopicConfig__Output {
    'topic': (string);
    'topic_id': (string);
    'entries': (_sluice_v1_TopicConfigEntry__Output)[];
}
//# sourceMappingURL=TopicConfig.d.ts.map