/**
 * Sliding windows (Kafka's SlidingWindows, KIP-450): windows of a fixed time difference whose
 * bounds come from the records themselves. Two records are in a common window when their
 * timestamps differ by at most `timeDifferenceMs`. A window is [start, start + difference] with
 * BOTH ends inclusive (so the `end` of its Windowed key is inclusive, as in Kafka), and the
 * windows that exist for a key are those whose contents differ:
 * - the left window of each record at t: [t - difference, t] (the window the record ends);
 * - the right window of each record at t: [t + 1, t + 1 + difference], when some record of the
 *   key falls in it (the window just after the record leaves).
 * A window would start before 0 only for a record earlier than the difference; such windows
 * become [0, difference] (Kafka does the same: window starts are never negative).
 *
 * The grace period is explicit (KIP-633). A window is closed once stream time passes its
 * (inclusive) end + grace; a record is late when even the last window that could hold it,
 * its own right window, is closed: t + difference + grace < stream time.
 */
import { type WindowBounds, checkDurationMs } from './durations.js'

export class SlidingWindows {
  private constructor(
    readonly timeDifferenceMs: number,
    readonly graceMs: number,
  ) {}

  static ofTimeDifferenceWithNoGrace(timeDifferenceMs: number): SlidingWindows {
    return SlidingWindows.ofTimeDifferenceAndGrace(timeDifferenceMs, 0)
  }

  static ofTimeDifferenceAndGrace(timeDifferenceMs: number, graceMs: number): SlidingWindows {
    return new SlidingWindows(
      checkDurationMs('SlidingWindows time difference', timeDifferenceMs, 1),
      checkDurationMs('SlidingWindows grace', graceMs, 0),
    )
  }

  /** The window that ends at `timestampMs` (clamped to start at 0). */
  leftWindowOf(timestampMs: number): WindowBounds {
    const start = Math.max(0, timestampMs - this.timeDifferenceMs)
    return { start, end: start + this.timeDifferenceMs }
  }

  /** The window that starts just after `timestampMs`. */
  rightWindowOf(timestampMs: number): WindowBounds {
    return { start: timestampMs + 1, end: timestampMs + 1 + this.timeDifferenceMs }
  }

  /** The first stream time at which the window is closed (its end is inclusive). */
  closeTimeMs(window: WindowBounds): number {
    return window.end + 1 + this.graceMs
  }

  /** The window store's default retention, counted back from stream time: difference + grace. */
  get retentionMs(): number {
    return this.timeDifferenceMs + this.graceMs
  }
}
