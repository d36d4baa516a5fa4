import type { Long } from '@grpc/proto-loader';
export interface InitProducerIdRequest {
    'transactional_id'?: (string);
    'transaction_timeout_ms'?: (number);
    /**
     * -1 for a new producer; an existing id and epoch to bump the epoch.
     */
    'producer_id'?: (number | string | Long);
    'producer_epoch'?: (number);
}
export interface InitProducerIdRequest__Output {
    'transactional_id': (string);
    'transaction_timeout_ms': (number);
    /**
     * -1 for a new producer; an existing id and epoch to bump the epoch.
     */
    'producer_id': (string);
    'producer_epoch': (number);
}
//# sourceMappingURL=InitProducerIdRequest.d.ts.map