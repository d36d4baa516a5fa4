import type { RegisterBroker as _sluice_v1_RegisterBroker, RegisterBroker__Output as _sluice_v1_RegisterBroker__Output } from '../../sluice/v1/RegisterBroker.js';
import type { BrokerHeartbeat as _sluice_v1_BrokerHeartbeat, BrokerHeartbeat__Output as _sluice_v1_BrokerHeartbeat__Output } from '../../sluice/v1/BrokerHeartbeat.js';
export interface BrokerSessionRequest {
    'register'?: (_sluice_v1_RegisterBroker | null);
    'heartbeat'?: (_sluice_v1_BrokerHeartbeat | null);
    'kind'?: "register" | "heartbeat";
}
export interface BrokerSessionRequest__Output {
    'register'?: (_sluice_v1_RegisterBroker__Output | null);
    'heartbeat'?: (_sluice_v1_BrokerHeartbeat__Output | null);
    'kind'?: "register" | "heartbeat";
}
//# sourceMappingURL=BrokerSessionRequest.d.ts.map