/**
 * Session windows (Kafka's SessionWindows): a key's activity split by gaps of inactivity. A
 * session is [start, end] with BOTH ends inclusive (the first and last record timestamps, as
 * in Kafka and the session store). A record at t joins every session of its key that ends at or
 * after t - gap and starts at or before t + gap, and those sessions merge into one (a record
 * can bridge two sessions).
 *
 * The grace period is explicit (KIP-633). A session can still grow while a record inside the
 * grace period could fall within its gap, so it closes once stream time passes end + gap + grace
 * (as Kafka does since its session close time includes the gap).
 */
import { type WindowBounds, checkDurationMs } from './durations.js'

export class SessionWindows {
  private constructor(
    readonly inactivityGapMs: number,
    readonly graceMs: number,
  ) {}

  static ofInactivityGapWithNoGrace(inactivityGapMs: number): SessionWindows {
    return SessionWindows.ofInactivityGapAndGrace(inactivityGapMs, 0)
  }

  static ofInactivityGapAndGrace(inactivityGapMs: number, graceMs: number): SessionWindows {
    return new SessionWindows(
      checkDurationMs('SessionWindows inactivity gap', inactivityGapMs, 1),
      checkDurationMs('SessionWindows grace', graceMs, 0),
    )
  }

  /** Whether a record at `timestampMs` falls within the gap of `session` (and so merges with it). */
  isWithinGap(session: WindowBounds, timestampMs: number): boolean {
    return timestampMs >= session.start - this.inactivityGapMs && timestampMs <= session.end + this.inactivityGapMs
  }

  /** The first stream time at which the session is closed. */
  closeTimeMs(session: WindowBounds): number {
    return session.end + this.inactivityGapMs + this.graceMs + 1
  }

  /** The session store's default retention, counted back from stream time by session end: gap + grace. */
  get retentionMs(): number {
    return this.inactivityGapMs + this.graceMs
  }
}
