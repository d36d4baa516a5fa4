export interface RegisterBroker {
    'broker_id'?: (number);
    'host'?: (string);
    'port'?: (number);
    'rack'?: (string);
    'admin_port'?: (number);
    /**
     * How long the controller waits without a heartbeat before ending the session.
     */
    'session_timeout_ms'?: (number);
    /**
     * Empty on the first start; a broker refuses to join a different cluster.
     */
    'cluster_id'?: (string);
}
export interface RegisterBroker__Output {
    'broker_id': (number);
    'host': (string);
    'port': (number);
    'rack': (string);
    'admin_port': (number);
    /**
     * How long the controller waits without a heartbeat before ending the session.
     */
    'session_timeout_ms': (number);
    /**
     * Empty on the first start; a broker refuses to join a different cluster.
     */
    'cluster_id': (string);
}
//# sourceMappingURL=RegisterBroker.d.ts.map