/**
 * Whole-call failures on the wire: a server answers with a gRPC status whose code comes from the
 * error table and whose metadata carries the Sluice error id, so the client rebuilds the same
 * typed error with `fromGrpcError`. Per-item failures travel as `error_code` fields instead.
 */
import { Metadata, status as GrpcStatus, type ServiceError, type StatusObject } from '@grpc/grpc-js'
import { ErrorCode, SluiceError, errorNameFromId } from './errors.js'

const ERROR_ID_KEY = 'sluice-error-id'

/** Server side: the status object to pass to a unary callback or `stream.destroy`. */
export function toGrpcError(
  err: unknown,
): Partial<StatusObject> & { code: GrpcStatus; details: string; metadata: Metadata } {
  const e =
    err instanceof SluiceError ? err : new SluiceError('UNKNOWN_SERVER_ERROR', String((err as Error)?.message ?? err))
  const metadata = new Metadata()
  metadata.set(ERROR_ID_KEY, String(e.id))
  return { code: ErrorCode[e.code].grpc, details: e.message, metadata }
}

/** Client side: any error from a gRPC call becomes a SluiceError (transport failures included). */
export function fromGrpcError(err: unknown): SluiceError {
  if (err instanceof SluiceError) return err
  const se = err as Partial<ServiceError>
  const idText = se.metadata?.get(ERROR_ID_KEY)[0]
  const message = se.details ?? se.message ?? String(err)
  if (idText !== undefined) {
    return new SluiceError(errorNameFromId(Number(idText)), message, {}, { cause: err })
  }
  switch (se.code) {
    case GrpcStatus.UNAVAILABLE:
      return new SluiceError('NETWORK_EXCEPTION', message, {}, { cause: err })
    case GrpcStatus.DEADLINE_EXCEEDED:
      return new SluiceError('REQUEST_TIMED_OUT', message, {}, { cause: err })
    case GrpcStatus.CANCELLED:
      return new SluiceError('NETWORK_EXCEPTION', message, {}, { cause: err })
    case GrpcStatus.UNIMPLEMENTED:
      return new SluiceError('UNSUPPORTED_VERSION', message, {}, { cause: err })
    case GrpcStatus.INVALID_ARGUMENT:
      return new SluiceError('INVALID_REQUEST', message, {}, { cause: err })
    case GrpcStatus.RESOURCE_EXHAUSTED:
      return new SluiceError('MESSAGE_TOO_LARGE', message, {}, { cause: err })
    default:
      return new SluiceError('UNKNOWN_SERVER_ERROR', message, { grpcCode: se.code }, { cause: err })
  }
}
