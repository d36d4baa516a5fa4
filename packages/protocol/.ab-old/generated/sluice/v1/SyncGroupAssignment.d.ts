export interface SyncGroupAssignment {
    'member_id'?: (string);
    'assignment'?: (Buffer | Uint8Array | string);
}
export interface SyncGroupAssignment__Output {
    'member_id': (string);
    'assignment': (Buffer);
}
//# sourceMappingURL=SyncGroupAssignment.d.ts.map