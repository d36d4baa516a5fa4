/**
 * Closes idle Kafka connections (Kafka's connections.max.idle.ms) with one timer per listener.
 *
 * Each connection counts its reads and answer writes (`activity`, a plain number). Every
 * idleMs / SWEEPS_PER_IDLE the sweep compares each count with the one it saw last time. A
 * connection whose count has not moved for SWEEPS_PER_IDLE sweeps in a row, and that has no
 * request in flight, has been quiet for at least idleMs, and at most idleMs plus one sweep, and is
 * closed. A request in flight (a parked fetch) keeps a connection open whatever its socket does.
 *
 * Why not the socket's own timeout (`socket.setTimeout`): Node re-arms that timer on every read
 * and every write, which reads the loop's clock and moves a timer list entry per message, on the
 * hottest path there is, to detect something that happens after ten minutes
 * (docs/decisions.md "Idle Kafka connections are found by a sweep").
 */

/** What the sweep needs of a connection (kafka-connection.ts). */
export interface IdleCandidate {
  /** Grows with every read and every answer written. */
  readonly activity: number
  /** A request is in flight: not idle, whatever the socket does. */
  readonly busy: boolean
  closeIdle(): void
}

/** Sweeps per idle period: a quiet connection is closed between idleMs and idleMs × 1.25. */
export const SWEEPS_PER_IDLE = 4

interface Seen {
  activity: number
  quietSweeps: number
}

export interface IdleSweep {
  /** One pass (the timer calls it; tests may too). */
  sweep(): void
  stop(): void
}

/** Starts sweeping `connections` (a live collection: connections added later are swept too). */
export function startIdleSweep(connections: Iterable<IdleCandidate>, idleMs: number): IdleSweep {
  const seen = new WeakMap<IdleCandidate, Seen>()
  const sweep = (): void => {
    for (const c of connections) {
      const last = seen.get(c)
      if (last === undefined || last.activity !== c.activity || c.busy) {
        seen.set(c, { activity: c.activity, quietSweeps: 0 })
        continue
      }
      last.quietSweeps += 1
      if (last.quietSweeps >= SWEEPS_PER_IDLE) c.closeIdle()
    }
  }
  // Unref'd: an idle sweep never keeps a stopping process alive.
  const timer = setInterval(sweep, Math.max(1, Math.ceil(idleMs / SWEEPS_PER_IDLE))).unref()
  return { sweep, stop: () => clearInterval(timer) }
}
