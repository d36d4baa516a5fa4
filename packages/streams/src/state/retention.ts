/**
 * Retention by stream time, shared by window and session stores. An entry whose time (a
 * window's start, a session's end) is before `streamTime - retention` is expired: it is never
 * returned, a write of it is dropped, and its bytes are deleted from the engine by purge(), run
 * after a flush. A purge walks the whole store, so it runs only once stream time has moved a
 * quarter of the retention (at least 1 ms) past the last purge's cutoff, and only when the
 * earliest time the store may hold is expired.
 *
 * Expiry deletes go to the engine alone, not to the changelog: the changelog of a window or
 * session store has retention of its own (cleanup.policy compact,delete), and a restore of an
 * expired entry is dropped by the next purge.
 */
import type { BytesEngine } from './bytes-engine.js'

export class Retention {
  /** The earliest time the engine may hold; -Infinity when unknown (a reopened persistent store). */
  private earliest = Number.POSITIVE_INFINITY
  private lastPurgeCutoff = Number.NEGATIVE_INFINITY

  constructor(
    readonly retentionMs: number,
    /** The time an entry's composite key carries (window start or session end). */
    private readonly timeOf: (composite: Buffer) => number,
  ) {}

  cutoff(streamTimeMs: number): number {
    return streamTimeMs - this.retentionMs
  }

  isExpired(timeMs: number, streamTimeMs: number): boolean {
    return timeMs < this.cutoff(streamTimeMs)
  }

  /** The store was opened: a persistent engine may hold anything from an earlier run. */
  opened(engine: BytesEngine): void {
    this.earliest = engine.persistent ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY
    this.lastPurgeCutoff = Number.NEGATIVE_INFINITY
  }

  /** An entry with this time was written (or restored). */
  wrote(timeMs: number): void {
    if (timeMs < this.earliest) this.earliest = timeMs
  }

  /** Deletes expired entries from the engine when due; returns how many it deleted. */
  purge(engine: BytesEngine, streamTimeMs: number): number {
    const cutoff = this.cutoff(streamTimeMs)
    if (this.earliest >= cutoff) return 0
    if (cutoff - this.lastPurgeCutoff < Math.max(1, this.retentionMs / 4)) return 0
    const expired: Buffer[] = []
    let earliest = Number.POSITIVE_INFINITY
    for (const [key] of engine.range()) {
      const time = this.timeOf(key)
      if (time < cutoff) expired.push(key)
      else if (time < earliest) earliest = time
    }
    for (const key of expired) engine.put(key, null, streamTimeMs)
    if (expired.length > 0) engine.flush()
    this.earliest = earliest
    this.lastPurgeCutoff = cutoff
    return expired.length
  }
}
