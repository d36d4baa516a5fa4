/**
 * JoinWindows: how far apart in time two records of a stream–stream join may be, and how long
 * the join waits for out-of-order records (Kafka Streams' JoinWindows, KIP-633 form: the grace
 * period is always explicit).
 *
 * A record of the left ("this") side at time t joins every right ("other") record with the same
 * key whose timestamp is in [t - beforeMs, t + afterMs]. Seen from the right side the window is
 * mirrored: a right record at t joins left records in [t - afterMs, t + beforeMs].
 *
 * A record's window closes once the join's stream time passes its time + its side's after bound
 * + graceMs. Then its left/outer "no match" result is emitted, it stops joining, and a record
 * that arrives after its own window closed is late: dropped and counted (docs/streams.md, Joins).
 */
import { StreamsError } from '../errors.js'

export class JoinWindows {
  private constructor(
    /** How far before a left record a right record may be. */
    readonly beforeMs: number,
    /** How far after a left record a right record may be. */
    readonly afterMs: number,
    /** How long after a record's window end out-of-order records are still accepted. */
    readonly graceMs: number,
  ) {}

  /** Records at most `timeDifferenceMs` apart join; out-of-order records are accepted for `graceMs` more. */
  static ofTimeDifferenceAndGrace(timeDifferenceMs: number, graceMs: number): JoinWindows {
    checkDuration('timeDifferenceMs', timeDifferenceMs)
    checkDuration('graceMs', graceMs)
    return new JoinWindows(timeDifferenceMs, timeDifferenceMs, graceMs)
  }

  /** Records at most `timeDifferenceMs` apart join; a record is late once its window has ended. */
  static ofTimeDifferenceWithNoGrace(timeDifferenceMs: number): JoinWindows {
    return JoinWindows.ofTimeDifferenceAndGrace(timeDifferenceMs, 0)
  }

  /** A copy whose before bound is `ms` (may be negative, as long as before + after stays >= 0). */
  before(ms: number): JoinWindows {
    checkBound('before', ms, this.afterMs)
    return new JoinWindows(ms, this.afterMs, this.graceMs)
  }

  /** A copy whose after bound is `ms` (may be negative, as long as before + after stays >= 0). */
  after(ms: number): JoinWindows {
    checkBound('after', ms, this.beforeMs)
    return new JoinWindows(this.beforeMs, ms, this.graceMs)
  }

  /** The span of times one record can join: before + after + 1 ms (the join stores' window size). */
  get sizeMs(): number {
    return this.beforeMs + this.afterMs + 1
  }

  /** How long the join stores keep a record behind stream time: the span plus the grace period. */
  get retentionMs(): number {
    return this.sizeMs + this.graceMs
  }
}

function checkDuration(what: string, ms: number): void {
  if (!Number.isSafeInteger(ms) || ms < 0) {
    throw new StreamsError('CONFIG', `JoinWindows: ${what} must be an integer >= 0 (ms), got ${String(ms)}`, {
      details: { [what]: ms },
    })
  }
}

function checkBound(what: string, ms: number, opposite: number): void {
  if (!Number.isSafeInteger(ms) || ms + opposite < 0) {
    throw new StreamsError(
      'CONFIG',
      `JoinWindows: ${what}(${String(ms)}) would make an inverse window (before + after must be >= 0)`,
      { details: { [what]: ms } },
    )
  }
}
