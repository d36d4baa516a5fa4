import type { TopicFetchResponse as _sluice_v1_TopicFetchResponse, TopicFetchResponse__Output as _sluice_v1_TopicFetchResponse__Output } from '../../sluice/v1/TopicFetchResponse.js';
import type { Long } from '@grpc/proto-loader';
export interface FetchResponse {
    'correlation_id'?: (number | string | Long);
    'error_code'?: (number);
    'error_message'?: (string);
    'topics'?: (_sluice_v1_TopicFetchResponse)[];
    'throttle_time_ms'?: (number);
}
export interface FetchResponse__Output {
    'correlation_id': (string);
    'error_code': (number);
    'error_message': (string);
    'topics': (_sluice_v1_TopicFetchResponse__Output)[];
    'throttle_time_ms': (number);
}
//# sourceMappingURL=FetchResponse.d.ts.map