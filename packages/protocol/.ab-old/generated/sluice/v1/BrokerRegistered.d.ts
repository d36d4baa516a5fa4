import type { Long } from '@grpc/proto-loader';
export interface BrokerRegistered {
    'broker_epoch'?: (number | string | Long);
    'cluster_id'?: (string);
    'controller_id'?: (number);
    'controller_epoch'?: (number);
}
export interface BrokerRegistered__Output {
    'broker_epoch': (string);
    'cluster_id': (string);
    'controller_id': (number);
    'controller_epoch': (number);
}
//# sourceMappingURL=BrokerRegistered.d.ts.map