/**
 * The one error type of @sluice/streams. `code` says what went wrong so callers (the runtime's
 * error policies, tests, applications) branch on it instead of on message text.
 */
export type StreamsErrorCode =
  /** A serde could not read or write its input (api/serde.ts). */
  | 'SERDE'
  /** A store, topic or operator was given a name that is missing or not allowed. */
  | 'INVALID_NAME'
  /** A store was configured with values that cannot work (a window size of 0, a negative retention). */
  | 'INVALID_CONFIG'
  /** A function was called with a value it cannot take (a negative checkpoint offset). */
  | 'INVALID_ARGUMENT'
  /** A store was used before init() or after close(). */
  | 'STORE_NOT_OPEN'
  /** A key too large for the persistent engine (lmdb keys are at most 1,978 bytes). */
  | 'KEY_TOO_LARGE'
  /** The persistent engine failed to open, read or write. */
  | 'STORE_IO'

export class StreamsError extends Error {
  readonly code: StreamsErrorCode

  constructor(code: StreamsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StreamsError'
    this.code = code
  }
}
