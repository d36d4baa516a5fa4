/**
 * The typed error @sluice/connect throws. Codes:
 * - 'CONFIG': a connector, task, transform or worker config that cannot work; `details.field`
 *   names the field (the REST API answers 400 with it).
 * - 'NOT_FOUND': an unknown connector, task or plugin (REST 404).
 * - 'CONFLICT': the request cannot be applied now (a rebalance is running, the connector exists;
 *   REST 409).
 * - 'CONVERTER': a converter could not turn bytes into connect data or back.
 * - 'TRANSFORM': a single-message transform or predicate failed on a record.
 * - 'TASK': a connector's task failed (poll, put, flush, commit).
 * - 'RUNTIME': the worker could not do its work (a topic, the group, a send).
 */
export type ConnectErrorCode = 'CONFIG' | 'NOT_FOUND' | 'CONFLICT' | 'CONVERTER' | 'TRANSFORM' | 'TASK' | 'RUNTIME'

export interface ConnectErrorOptions {
  readonly cause?: unknown
  /** Machine-readable facts: `field` for a config error, `connector`, `task`, `topic`. */
  readonly details?: Readonly<Record<string, unknown>>
}

export class ConnectError extends Error {
  override readonly name = 'ConnectError'
  readonly code: ConnectErrorCode
  readonly details: Readonly<Record<string, unknown>>

  constructor(code: ConnectErrorCode, message: string, options: ConnectErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.details = options.details ?? {}
    // Enumerable so structured logs serialise it.
    Object.defineProperty(this, 'message', { enumerable: true, value: this.message })
  }
}

export function isConnectError(e: unknown, code?: ConnectErrorCode): e is ConnectError {
  return e instanceof ConnectError && (code === undefined || e.code === code)
}

/** A config error naming its field. */
export function configError(field: string, message: string): ConnectError {
  return new ConnectError('CONFIG', `${field}: ${message}`, { details: { field } })
}
