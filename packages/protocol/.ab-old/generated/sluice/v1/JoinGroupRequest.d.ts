import type { GroupProtocol as _sluice_v1_GroupProtocol, GroupProtocol__Output as _sluice_v1_GroupProtocol__Output } from '../../sluice/v1/GroupProtocol.js';
export interface JoinGroupRequest {
    'group_id'?: (string);
    'session_timeout_ms'?: (number);
    /**
     * How long the coordinator waits for members to rejoin during a rebalance (= max poll interval).
     */
    'rebalance_timeout_ms'?: (number);
    /**
     * Empty on the first join: the coordinator answers MEMBER_ID_REQUIRED with an id to rejoin with.
     */
    'member_id'?: (string);
    /**
     * Static membership (KIP-345); empty for dynamic members.
     */
    'group_instance_id'?: (string);
    /**
     * "consumer" for consumer groups.
     */
    'protocol_type'?: (string);
    'protocols'?: (_sluice_v1_GroupProtocol)[];
    'client_id'?: (string);
    'client_host'?: (string);
}
export interface JoinGroupRequest__Output {
    'group_id': (string);
    'session_timeout_ms': (number);
    /**
     * How long the coordinator waits for members to rejoin during a rebalance (= max poll interval).
     */
    'rebalance_timeout_ms': (number);
    /**
     * Empty on the first join: the coordinator answers MEMBER_ID_REQUIRED with an id to rejoin with.
     */
    'member_id': (string);
    /**
     * Static membership (KIP-345); empty for dynamic members.
     */
    'group_instance_id': (string);
    /**
     * "consumer" for consumer groups.
     */
    'protocol_type': (string);
    'protocols': (_sluice_v1_GroupProtocol__Output)[];
    'client_id': (string);
    'client_host': (string);
}
//# sourceMappingURL=JoinGroupRequest.d.ts.map