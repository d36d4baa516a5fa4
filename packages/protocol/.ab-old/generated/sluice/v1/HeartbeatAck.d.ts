import type { Long } from '@grpc/proto-loader';
export interface HeartbeatAck {
    'broker_epoch'?: (number | string | Long);
}
export interface HeartbeatAck__Output {
    'broker_epoch': (string);
}
//# sourceMappingURL=HeartbeatAck.d.ts.map