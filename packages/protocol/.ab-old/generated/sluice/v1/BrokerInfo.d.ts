import type { Long } from '@grpc/proto-loader';
export interface BrokerInfo {
    'broker_id'?: (number);
    'host'?: (string);
    'port'?: (number);
    'rack'?: (string);
    /**
     * Epoch of the broker's current metadata session; strictly increasing per broker id.
     */
    'broker_epoch'?: (number | string | Long);
    /**
     * Admin HTTP port (metrics and health), 0 when not served.
     */
    'admin_port'?: (number);
}
export interface BrokerInfo__Output {
    'broker_id': (number);
    'host': (string);
    'port': (number);
    'rack': (string);
    /**
     * Epoch of the broker's current metadata session; strictly increasing per broker id.
     */
    'broker_epoch': (string);
    /**
     * Admin HTTP port (metrics and health), 0 when not served.
     */
    'admin_port': (number);
}
//# sourceMappingURL=BrokerInfo.d.ts.map