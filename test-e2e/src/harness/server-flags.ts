/**
 * The server settings the fault suite needs, in one place, named as the servers' config schemas
 * name them (packages/broker/src/config.ts, packages/metadata/src/config.ts). Short timeouts make
 * a failover take a few seconds instead of Kafka's tens.
 */

export interface ClusterTimeouts {
  /** Broker session with the metadata service; the controller declares a silent broker lost after it. */
  readonly sessionTimeoutMs: number
  readonly heartbeatIntervalMs: number
  /** A follower that has not caught up for this long leaves the ISR. */
  readonly replicaLagMaxMs: number
}

export function metadataArgs(t: ClusterTimeouts): string[] {
  return ['--broker-session-timeout-ms', String(t.sessionTimeoutMs)]
}

/**
 * Flags of one broker: its timeouts, and where it dials each peer for replication (the per-pair
 * proxy) instead of the peer's registered endpoint. FaultCluster.wiringProblems() checks the
 * override is in effect.
 */
export function brokerArgs(t: ClusterTimeouts, peers: ReadonlyArray<{ brokerId: number; endpoint: string }>): string[] {
  return [
    '--session-timeout-ms',
    String(t.sessionTimeoutMs),
    '--heartbeat-interval-ms',
    String(t.heartbeatIntervalMs),
    '--replica-lag-max-ms',
    String(t.replicaLagMaxMs),
    '--replica-connect-overrides',
    peers.map((p) => `${p.brokerId}=${p.endpoint}`).join(','),
  ]
}
