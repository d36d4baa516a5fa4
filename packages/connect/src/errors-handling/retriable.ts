/**
 * Which failures are worth retrying (`errors.retry.timeout`): a SluiceError the broker marked
 * retriable (a leader moved, a timeout), or a ConnectError a connector threw with
 * `details.retriable: true` (its external system is briefly away; Kafka's RetriableException).
 * Everything else fails at once: retrying a bad record gives the same answer.
 */
import { SluiceError } from '@sluice/client'
import { ConnectError, type ConnectErrorCode } from '../errors.js'

export function isRetriable(e: unknown): boolean {
  if (e instanceof SluiceError) return e.retriable
  return e instanceof ConnectError && e.details.retriable === true
}

/** A ConnectError the error handler retries (for connectors: `throw retriableError('TASK', …)`). */
export function retriableError(code: ConnectErrorCode, message: string, cause?: unknown): ConnectError {
  return new ConnectError(code, message, { details: { retriable: true }, ...(cause === undefined ? {} : { cause }) })
}
