/**
 * What `suppress(...)` holds back, and how much it may hold (Kafka's Suppressed and
 * BufferConfig):
 * - `untilWindowCloses(buffer)`: on a windowed table, only each window's final result is
 *   emitted, once stream time reaches the window's close (end + grace). Exactly one result per
 *   window, so a full buffer cannot emit early: it stops the task (StreamsError 'RUNTIME'), and
 *   a buffer configured with emitEarlyWhenFull() is refused (StreamsError 'CONFIG').
 * - `untilTimeLimit(ms, buffer)`: on any table, a key's latest value is emitted once `ms` of
 *   stream time have passed since the key entered the buffer (rate limiting). A full buffer
 *   emits its oldest key early unless shutDownWhenFull() was chosen.
 * Buffers: `unbounded()`, `maxRecords(n)`, `maxBytes(n)` (bytes as the key and value
 * serialize, or an estimate when the suppress node has no serdes).
 */
import { StreamsError } from '../errors.js'
import { checkDurationMs } from '../windows/durations.js'

export type BufferFullPolicy = 'emit-early' | 'shut-down'

export class BufferConfig {
  private constructor(
    /** Infinity when unbounded. */
    readonly maxRecords: number,
    /** Infinity when unbounded. */
    readonly maxBytes: number,
    /** undefined: the suppression's own default (shut down for final results, emit early for a time limit). */
    readonly whenFull: BufferFullPolicy | undefined,
  ) {}

  static unbounded(): BufferConfig {
    return new BufferConfig(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, undefined)
  }

  static maxRecords(maxRecords: number): BufferConfig {
    return BufferConfig.unbounded().withMaxRecords(maxRecords)
  }

  static maxBytes(maxBytes: number): BufferConfig {
    return BufferConfig.unbounded().withMaxBytes(maxBytes)
  }

  withMaxRecords(maxRecords: number): BufferConfig {
    return new BufferConfig(checkBound('maxRecords', maxRecords), this.maxBytes, this.whenFull)
  }

  withMaxBytes(maxBytes: number): BufferConfig {
    return new BufferConfig(this.maxRecords, checkBound('maxBytes', maxBytes), this.whenFull)
  }

  emitEarlyWhenFull(): BufferConfig {
    return new BufferConfig(this.maxRecords, this.maxBytes, 'emit-early')
  }

  shutDownWhenFull(): BufferConfig {
    return new BufferConfig(this.maxRecords, this.maxBytes, 'shut-down')
  }
}

export type Suppressed =
  | { readonly kind: 'until-window-closes'; readonly buffer: BufferConfig }
  | { readonly kind: 'until-time-limit'; readonly timeLimitMs: number; readonly buffer: BufferConfig }

export const Suppressed = {
  untilWindowCloses(buffer: BufferConfig): Suppressed {
    checkBuffer(buffer)
    if (buffer.whenFull === 'emit-early') {
      throw new StreamsError(
        'CONFIG',
        'suppress(untilWindowCloses): the buffer cannot emit early when full (that would emit a window before its final result)',
      )
    }
    return { kind: 'until-window-closes', buffer }
  },

  untilTimeLimit(timeLimitMs: number, buffer: BufferConfig): Suppressed {
    checkBuffer(buffer)
    return { kind: 'until-time-limit', timeLimitMs: checkDurationMs('suppress time limit', timeLimitMs, 0), buffer }
  },
}

/** Shorthands, so a topology reads `suppress(untilWindowCloses(unbounded()))`. */
export const untilWindowCloses = Suppressed.untilWindowCloses
export const untilTimeLimit = Suppressed.untilTimeLimit
export const unbounded = BufferConfig.unbounded
export const maxRecords = BufferConfig.maxRecords
export const maxBytes = BufferConfig.maxBytes

function checkBound(what: string, value: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new StreamsError('CONFIG', `suppress buffer ${what} must be a positive integer, got ${String(value)}`, {
      details: { option: what, value },
    })
  }
  return value
}

function checkBuffer(buffer: unknown): void {
  if (!(buffer instanceof BufferConfig)) {
    throw new StreamsError('CONFIG', 'suppress needs a buffer config: unbounded(), maxRecords(n) or maxBytes(n)')
  }
}
