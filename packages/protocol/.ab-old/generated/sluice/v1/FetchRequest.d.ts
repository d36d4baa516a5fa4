import type { TopicFetchData as _sluice_v1_TopicFetchData, TopicFetchData__Output as _sluice_v1_TopicFetchData__Output } from '../../sluice/v1/TopicFetchData.js';
import type { Long } from '@grpc/proto-loader';
export interface FetchRequest {
    'correlation_id'?: (number | string | Long);
    /**
     * -1 for consumers; a follower's broker id for replication.
     */
    'replica_id'?: (number);
    'max_wait_ms'?: (number);
    'min_bytes'?: (number);
    /**
     * Limit for the whole response; the first batch is returned even if larger (KIP-74).
     */
    'max_bytes'?: (number);
    /**
     * 0 = read_uncommitted, 1 = read_committed.
     */
    'isolation_level'?: (number);
    'topics'?: (_sluice_v1_TopicFetchData)[];
    'client_id'?: (string);
    /**
     * The follower's broker epoch (replication only).
     */
    'replica_epoch'?: (number | string | Long);
}
export interface FetchRequest__Output {
    'correlation_id': (string);
    /**
     * -1 for consumers; a follower's broker id for replication.
     */
    'replica_id': (number);
    'max_wait_ms': (number);
    'min_bytes': (number);
    /**
     * Limit for the whole response; the first batch is returned even if larger (KIP-74).
     */
    'max_bytes': (number);
    /**
     * 0 = read_uncommitted, 1 = read_committed.
     */
    'isolation_level': (number);
    'topics': (_sluice_v1_TopicFetchData__Output)[];
    'client_id': (string);
    /**
     * The follower's broker epoch (replication only).
     */
    'replica_epoch': (string);
}
//# sourceMappingURL=FetchRequest.d.ts.map