/**
 * Tumbling and hopping time windows (Kafka's TimeWindows). A window is [start, start + size):
 * its end is exclusive, its start a multiple of the advance and never negative, and a record
 * belongs to every window that contains its timestamp (one window when tumbling, size / advance
 * windows when hopping).
 *
 * The grace period is part of the definition and has no default (Kafka's KIP-633): the only
 * ways to make one are `ofSizeWithNoGrace(size)` and `ofSizeAndGrace(size, grace)`. A window is
 * closed once stream time reaches end + grace: records for it are then dropped and counted as
 * late, and suppress(untilWindowCloses) emits its final result.
 */
import { StreamsError } from '../errors.js'
import { type WindowBounds, checkDurationMs } from './durations.js'

export class TimeWindows {
  private constructor(
    readonly sizeMs: number,
    readonly advanceMs: number,
    readonly graceMs: number,
  ) {}

  /** Tumbling windows of `sizeMs` with no grace: a record after its window's end is late. */
  static ofSizeWithNoGrace(sizeMs: number): TimeWindows {
    return TimeWindows.ofSizeAndGrace(sizeMs, 0)
  }

  /** Tumbling windows of `sizeMs` that accept out-of-order records until end + `graceMs`. */
  static ofSizeAndGrace(sizeMs: number, graceMs: number): TimeWindows {
    const size = checkDurationMs('TimeWindows size', sizeMs, 1)
    const grace = checkDurationMs('TimeWindows grace', graceMs, 0)
    return new TimeWindows(size, size, grace)
  }

  /** Hopping windows: a new window every `advanceMs` (0 < advance <= size; advance = size is tumbling). */
  advanceBy(advanceMs: number): TimeWindows {
    const advance = checkDurationMs('TimeWindows advance', advanceMs, 1)
    if (advance > this.sizeMs) {
      throw new StreamsError(
        'CONFIG',
        `TimeWindows advance (${advance} ms) must not exceed the window size (${this.sizeMs} ms)`,
        { details: { option: 'TimeWindows advance', value: advance, sizeMs: this.sizeMs } },
      )
    }
    return new TimeWindows(this.sizeMs, advance, this.graceMs)
  }

  /**
   * The windows that contain `timestampMs`, oldest first. A negative timestamp is in none
   * (window starts are never negative, as in Kafka).
   */
  windowsFor(timestampMs: number): WindowBounds[] {
    if (timestampMs < 0) return []
    const windows: WindowBounds[] = []
    const earliest = Math.max(0, timestampMs - this.sizeMs + this.advanceMs)
    for (let start = Math.floor(earliest / this.advanceMs) * this.advanceMs; start <= timestampMs; ) {
      windows.push({ start, end: start + this.sizeMs })
      start += this.advanceMs
    }
    return windows
  }

  /** The first stream time at which the window is closed (its end is exclusive). */
  closeTimeMs(window: WindowBounds): number {
    return window.end + this.graceMs
  }

  /** How long the window store keeps a window by default: size + grace, so no open window is lost. */
  get retentionMs(): number {
    return this.sizeMs + this.graceMs
  }
}
