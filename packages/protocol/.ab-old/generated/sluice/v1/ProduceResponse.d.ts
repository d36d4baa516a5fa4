import type { TopicProduceResponse as _sluice_v1_TopicProduceResponse, TopicProduceResponse__Output as _sluice_v1_TopicProduceResponse__Output } from '../../sluice/v1/TopicProduceResponse.js';
import type { Long } from '@grpc/proto-loader';
export interface ProduceResponse {
    'correlation_id'?: (number | string | Long);
    'topics'?: (_sluice_v1_TopicProduceResponse)[];
    'throttle_time_ms'?: (number);
}
export interface ProduceResponse__Output {
    'correlation_id': (string);
    'topics': (_sluice_v1_TopicProduceResponse__Output)[];
    'throttle_time_ms': (number);
}
//# sourceMappingURL=ProduceResponse.d.ts.map