/**
 * The typed error @sluice/streams throws. Every message names what failed (the operator, the
 * store or the topic) so a user can find it in their own topology without a stack trace.
 *
 * Codes:
 * - 'SERDE': a serde could not read or write a key or value (the runtime applies the
 *   deserialization-error policy to these instead of crashing the task).
 * - 'TOPOLOGY': the topology is wrong: a missing or duplicate store or repartition name, a
 *   store a processor asks for that it was not connected to, a cycle, no source.
 * - 'CONFIG': a bad option (an application id, an interval, a partition count).
 * - 'STATE': a state store misused or broken (closed, not initialised, restore failed).
 * - 'TASK': a task misused by the runtime (process before init, after close).
 * - 'RUNTIME': the runtime could not do its work (a send failed, the group is gone).
 * - 'QUERY': an interactive query could not be answered (unknown store, key not hosted here).
 * The state stores use finer codes of their own for what only a store can tell:
 * - 'INVALID_NAME': a store name that is missing or cannot name a changelog topic or directory.
 * - 'INVALID_CONFIG': store options that cannot work (a window size of 0, a negative retention).
 * - 'STORE_NOT_OPEN': a store used before init() or after close().
 * - 'KEY_TOO_LARGE': a key too large for the persistent engine.
 * - 'STORE_IO': the persistent engine failed to open, read or write.
 */
export type StreamsErrorCode =
  | 'SERDE'
  | 'TOPOLOGY'
  | 'CONFIG'
  | 'STATE'
  | 'TASK'
  | 'RUNTIME'
  | 'QUERY'
  | 'INVALID_NAME'
  | 'INVALID_CONFIG'
  | 'STORE_NOT_OPEN'
  | 'KEY_TOO_LARGE'
  | 'STORE_IO'

export interface StreamsErrorOptions {
  readonly cause?: unknown
  /** Machine-readable facts (the operator, store or topic named in the message). */
  readonly details?: Readonly<Record<string, unknown>>
}

export class StreamsError extends Error {
  override readonly name = 'StreamsError'
  readonly code: StreamsErrorCode
  readonly details: Readonly<Record<string, unknown>>

  constructor(code: StreamsErrorCode, message: string, options: StreamsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.details = options.details ?? {}
    // Enumerable so structured logs serialise it.
    Object.defineProperty(this, 'message', { enumerable: true, value: this.message })
  }
}

export function isStreamsError(e: unknown, code?: StreamsErrorCode): e is StreamsError {
  return e instanceof StreamsError && (code === undefined || e.code === code)
}
