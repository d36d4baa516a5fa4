import type { BrokerInfo as _sluice_v1_BrokerInfo, BrokerInfo__Output as _sluice_v1_BrokerInfo__Output } from '../../sluice/v1/BrokerInfo.js';
import type { PartitionState as _sluice_v1_PartitionState, PartitionState__Output as _sluice_v1_PartitionState__Output } from '../../sluice/v1/PartitionState.js';
import type { TopicConfig as _sluice_v1_TopicConfig, TopicConfig__Output as _sluice_v1_TopicConfig__Output } from '../../sluice/v1/TopicConfig.js';
/**
 * The first update after registration is a full snapshot (full = true); later ones are deltas:
 * brokers is always the complete live-broker list, partitions are upserts, deleted_topics removes
 * every partition of those topics, topic_configs are upserts of whole effective configs.
 */
export interface MetadataUpdate {
    'full'?: (boolean);
    'brokers'?: (_sluice_v1_BrokerInfo)[];
    'partitions'?: (_sluice_v1_PartitionState)[];
    'deleted_topics'?: (string)[];
    'topic_configs'?: (_sluice_v1_TopicConfig)[];
    'controller_id'?: (number);
    'controller_epoch'?: (number);
    'metadata_endpoints'?: (string)[];
    'cluster_id'?: (string);
}
/**
 * The first update after registration is a full snapshot (full = true); later ones are deltas:
 * brokers is always the complete live-broker list, partitions are upserts, deleted_topics removes
 * every partition of those topics, topic_configs are upserts of whole effective configs.
 */
export interface MetadataUpdate__Output {
    'full': (boolean);
    'brokers': (_sluice_v1_BrokerInfo__Output)[];
    'partitions': (_sluice_v1_PartitionState__Output)[];
    'deleted_topics': (string)[];
    'topic_configs': (_sluice_v1_TopicConfig__Output)[];
    'controller_id': (number);
    'controller_epoch': (number);
    'metadata_endpoints': (string)[];
    'cluster_id': (string);
}
//# sourceMappingURL=MetadataUpdate.d.ts.map