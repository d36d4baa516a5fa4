import type { Long } from '@grpc/proto-loader';
export interface BrokerHeartbeat {
    'broker_id'?: (number);
    'broker_epoch'?: (number | string | Long);
}
export interface BrokerHeartbeat__Output {
    'broker_id': (number);
    'broker_epoch': (string);
}
//# sourceMappingURL=BrokerHeartbeat.d.ts.map