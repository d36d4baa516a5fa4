import type { BrokerRegistered as _sluice_v1_BrokerRegistered, BrokerRegistered__Output as _sluice_v1_BrokerRegistered__Output } from '../../sluice/v1/BrokerRegistered.js';
import type { HeartbeatAck as _sluice_v1_HeartbeatAck, HeartbeatAck__Output as _sluice_v1_HeartbeatAck__Output } from '../../sluice/v1/HeartbeatAck.js';
import type { MetadataUpdate as _sluice_v1_MetadataUpdate, MetadataUpdate__Output as _sluice_v1_MetadataUpdate__Output } from '../../sluice/v1/MetadataUpdate.js';
import type { SessionError as _sluice_v1_SessionError, SessionError__Output as _sluice_v1_SessionError__Output } from '../../sluice/v1/SessionError.js';
export interface BrokerSessionResponse {
    'registered'?: (_sluice_v1_BrokerRegistered | null);
    'heartbeat_ack'?: (_sluice_v1_HeartbeatAck | null);
    'update'?: (_sluice_v1_MetadataUpdate | null);
    'error'?: (_sluice_v1_SessionError | null);
    'kind'?: "registered" | "heartbeat_ack" | "update" | "error";
}
export interface BrokerSessionResponse__Output {
    'registered'?: (_sluice_v1_BrokerRegistered__Output | null);
    'heartbeat_ack'?: (_sluice_v1_HeartbeatAck__Output | null);
    'update'?: (_sluice_v1_MetadataUpdate__Output | null);
    'error'?: (_sluice_v1_SessionError__Output | null);
    'kind'?: "registered" | "heartbeat_ack" | "update" | "error";
}
//# sourceMappingURL=BrokerSessionResponse.d.ts.map