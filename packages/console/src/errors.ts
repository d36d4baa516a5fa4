/**
 * The console API's one error shape: `{"error_code": "<CODE>", "message": "…"}` (and the same
 * two again as `"error": {"code", "message"}`, see errorBody) with an HTTP
 * status that says what kind of failure it is. SDK errors keep their SluiceError code (e.g.
 * TOPIC_ALREADY_EXISTS), so a script can branch on the same names as the CLI prints; the
 * console's own refusals use the codes below.
 */
import { isSluiceError } from '@sluice/client'

export type ConsoleErrorCode =
  | 'BAD_REQUEST'
  | 'CONFIRMATION_REQUIRED'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'CONNECT_NOT_CONFIGURED'
  | 'INTERNAL'

const STATUS_OF_CONSOLE_CODE: Record<ConsoleErrorCode, number> = {
  BAD_REQUEST: 400,
  CONFIRMATION_REQUIRED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  CONNECT_NOT_CONFIGURED: 404,
  INTERNAL: 500,
}

export class ConsoleError extends Error {
  override readonly name = 'ConsoleError'
  readonly status: number
  constructor(
    readonly code: ConsoleErrorCode,
    message: string,
  ) {
    super(message)
    this.status = STATUS_OF_CONSOLE_CODE[code]
  }
}

export const badRequest = (message: string): ConsoleError => new ConsoleError('BAD_REQUEST', message)

/** SDK codes that are the caller's doing, by the HTTP status that says so; the rest are 5xx. */
const STATUS_OF_SDK_CODE: Readonly<Record<string, number>> = {
  UNKNOWN_TOPIC_OR_PARTITION: 404,
  UNKNOWN_TOPIC_ID: 404,
  GROUP_ID_NOT_FOUND: 404,
  TOPIC_ALREADY_EXISTS: 409,
  NON_EMPTY_GROUP: 409,
  INVALID_TOPIC_EXCEPTION: 400,
  INVALID_PARTITIONS: 400,
  INVALID_REPLICATION_FACTOR: 400,
  INVALID_REPLICA_ASSIGNMENT: 400,
  INVALID_CONFIG: 400,
  INVALID_REQUEST: 400,
  INVALID_ARGUMENT: 400,
  INVALID_GROUP_ID: 400,
  INVALID_TIMESTAMP: 400,
  INVALID_RECORD: 400,
  POLICY_VIOLATION: 400,
  OFFSET_OUT_OF_RANGE: 400,
  MESSAGE_TOO_LARGE: 413,
  RECORD_LIST_TOO_LARGE: 413,
  NETWORK_EXCEPTION: 503,
  BROKER_NOT_AVAILABLE: 503,
  LEADER_NOT_AVAILABLE: 503,
  COORDINATOR_NOT_AVAILABLE: 503,
  REQUEST_TIMED_OUT: 504,
  DELIVERY_TIMEOUT: 504,
}

export interface ErrorBody {
  readonly error_code: string
  readonly message: string
  /**
   * The same code and message, nested: the API first answered `{error_code, message}` and the
   * page's contract was also written as `{error: {code, message}}`; both stay, so neither a
   * script nor the page depends on which one it reads.
   */
  readonly error: { readonly code: string; readonly message: string }
}

export interface ErrorAnswer {
  readonly status: number
  readonly body: ErrorBody
}

export const errorBody = (code: string, message: string): ErrorBody => ({
  error_code: code,
  message,
  error: { code, message },
})

/** What the API answers for a failure; TypeError/RangeError are the SDK's input checks (400). */
export function errorAnswer(err: unknown): ErrorAnswer {
  if (err instanceof ConsoleError) return { status: err.status, body: errorBody(err.code, err.message) }
  if (isSluiceError(err)) return { status: STATUS_OF_SDK_CODE[err.code] ?? 500, body: errorBody(err.code, err.message) }
  if (err instanceof TypeError || err instanceof RangeError)
    return { status: 400, body: errorBody('BAD_REQUEST', err.message) }
  return { status: 500, body: errorBody('INTERNAL', err instanceof Error ? err.message : String(err)) }
}
