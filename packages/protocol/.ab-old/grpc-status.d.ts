/**
 * Whole-call failures on the wire: a server answers with a gRPC status whose code comes from the
 * error table and whose metadata carries the Sluice error id, so the client rebuilds the same
 * typed error with `fromGrpcError`. Per-item failures travel as `error_code` fields instead.
 */
import { Metadata, status as GrpcStatus, type StatusObject } from '@grpc/grpc-js';
import { SluiceError } from './errors.js';
/** Server side: the status object to pass to a unary callback or `stream.destroy`. */
export declare function toGrpcError(err: unknown): Partial<StatusObject> & {
    code: GrpcStatus;
    details: string;
    metadata: Metadata;
};
/** Client side: any error from a gRPC call becomes a SluiceError (transport failures included). */
export declare function fromGrpcError(err: unknown): SluiceError;
//# sourceMappingURL=grpc-status.d.ts.map