import type { TopicProduceData as _sluice_v1_TopicProduceData, TopicProduceData__Output as _sluice_v1_TopicProduceData__Output } from '../../sluice/v1/TopicProduceData.js';
import type { Long } from '@grpc/proto-loader';
export interface ProduceRequest {
    'correlation_id'?: (number | string | Long);
    /**
     * 0 = no response, 1 = leader appended, -1 = all in-sync replicas have it.
     */
    'acks'?: (number);
    'timeout_ms'?: (number);
    'topics'?: (_sluice_v1_TopicProduceData)[];
    'client_id'?: (string);
    'transactional_id'?: (string);
}
export interface ProduceRequest__Output {
    'correlation_id': (string);
    /**
     * 0 = no response, 1 = leader appended, -1 = all in-sync replicas have it.
     */
    'acks': (number);
    'timeout_ms': (number);
    'topics': (_sluice_v1_TopicProduceData__Output)[];
    'client_id': (string);
    'transactional_id': (string);
}
//# sourceMappingURL=ProduceRequest.d.ts.map