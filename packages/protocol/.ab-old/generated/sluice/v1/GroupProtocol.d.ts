export interface GroupProtocol {
    /**
     * The assignor name: "range", "roundrobin", "cooperative-sticky".
     */
    'name'?: (string);
    /**
     * Opaque to the coordinator: the member's subscription (topics, owned partitions, user data).
     */
    'metadata'?: (Buffer | Uint8Array | string);
}
export interface GroupProtocol__Output {
    /**
     * The assignor name: "range", "roundrobin", "cooperative-sticky".
     */
    'name': (string);
    /**
     * Opaque to the coordinator: the member's subscription (topics, owned partitions, user data).
     */
    'metadata': (Buffer);
}
//# sourceMappingURL=GroupProtocol.d.ts.map