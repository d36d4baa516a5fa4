import type { BrokerInfo as _sluice_v1_BrokerInfo, BrokerInfo__Output as _sluice_v1_BrokerInfo__Output } from '../../sluice/v1/BrokerInfo.js';
import type { TopicMetadata as _sluice_v1_TopicMetadata, TopicMetadata__Output as _sluice_v1_TopicMetadata__Output } from '../../sluice/v1/TopicMetadata.js';
export interface MetadataResponse {
    'cluster_id'?: (string);
    'controller_id'?: (number);
    'brokers'?: (_sluice_v1_BrokerInfo)[];
    'topics'?: (_sluice_v1_TopicMetadata)[];
    /**
     * host:port of every metadata-service instance (admin and group-coordinator requests go there).
     */
    'metadata_endpoints'?: (string)[];
}
export interface MetadataResponse__Output {
    'cluster_id': (string);
    'controller_id': (number);
    'brokers': (_sluice_v1_BrokerInfo__Output)[];
    'topics': (_sluice_v1_TopicMetadata__Output)[];
    /**
     * host:port of every metadata-service instance (admin and group-coordinator requests go there).
     */
    'metadata_endpoints': (string)[];
}
//# sourceMappingURL=MetadataResponse.d.ts.map