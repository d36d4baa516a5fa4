import type { Long } from '@grpc/proto-loader';
export interface InitProducerIdResponse {
    'error_code'?: (number);
    'error_message'?: (string);
    'producer_id'?: (number | string | Long);
    'producer_epoch'?: (number);
}
export interface InitProducerIdResponse__Output {
    'error_code': (number);
    'error_message': (string);
    'producer_id': (string);
    'producer_epoch': (number);
}
//# sourceMappingURL=InitProducerIdResponse.d.ts.map