export interface ListGroupsRequest {
    /**
     * Empty = every state.
     */
    'states'?: (string)[];
}
export interface ListGroupsRequest__Output {
    /**
     * Empty = every state.
     */
    'states': (string)[];
}
//# sourceMappingURL=ListGroupsRequest.d.ts.map