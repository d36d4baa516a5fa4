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
 */
export type StreamsErrorCode = 'SERDE' | 'TOPOLOGY' | 'CONFIG' | 'STATE' | 'TASK' | 'RUNTIME' | 'QUERY'

export class StreamsError extends Error {
  override readonly name = 'StreamsError'
  readonly code: StreamsErrorCode
  readonly details: Readonly<Record<string, unknown>>

  constructor(
    code: StreamsErrorCode,
    message: string,
    details: Readonly<Record<string, unknown>> = {},
    options?: ErrorOptions,
  ) {
    super(message, options)
    this.code = code
    this.details = details
    // Enumerable so structured logs serialise it.
    Object.defineProperty(this, 'message', { enumerable: true, value: this.message })
  }
}

export function isStreamsError(e: unknown, code?: StreamsErrorCode): e is StreamsError {
  return e instanceof StreamsError && (code === undefined || e.code === code)
}
