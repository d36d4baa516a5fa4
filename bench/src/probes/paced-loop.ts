/**
 * The probes' message clock: message i is due at t0 + i / rate, for `warmup + count` messages
 * (a bounded loop). A timer sends what is due and sleeps until the next message is due, at
 * least 1 ms (Node's timer floor), the same rule as the producer's load loop
 * (workers/producer-load.ts): at 200/s every message is its own wake-up, 5 ms after the last,
 * so the receiving process has gone idle; at 10,000/s each tick sends the ~10 messages that fell
 * due, each its own write, and the receiver rarely sleeps. The first `warmup` messages warm both
 * ends (JIT, connection, buffers) and are not measured.
 */

export interface Pace {
  readonly ratePerSec: number
  /** Unmeasured messages first. */
  readonly warmup: number
  /** Measured messages after them. */
  readonly count: number
}

/**
 * Calls `send(seq, measured)` for every message at its due time; resolves after the last one.
 * A `send` that returns a promise is awaited before the next message (serial operations such as
 * a file write), so a slow operation delays the ones after it instead of overlapping them.
 */
export function runPaced(
  pace: Pace,
  send: (seq: number, measured: boolean) => undefined | Promise<void>,
): Promise<void> {
  const total = pace.warmup + pace.count
  const intervalMs = 1000 / pace.ratePerSec
  const t0 = performance.now()
  let seq = 0
  return new Promise<void>((resolve, reject) => {
    const tick = async (): Promise<void> => {
      const due = Math.min(total, Math.floor((performance.now() - t0) / intervalMs) + 1)
      for (; seq < due; seq++) {
        const p = send(seq, seq >= pace.warmup)
        if (p !== undefined) await p
      }
      if (seq >= total) {
        resolve()
        return
      }
      const waitMs = seq * intervalMs - (performance.now() - t0)
      setTimeout(run, Math.max(1, Math.floor(waitMs)))
    }
    const run = (): void => {
      tick().catch(reject)
    }
    run()
  })
}

/**
 * The standard paces, about 7 s per peer in all; `scale` shrinks them (tests). 200/s and
 * 10,000/s are the anatomy's record rates. 1,000/s is added because at 10,000 records/s the
 * cluster exchanges only a few hundred to a thousand messages a second (a batch carries tens
 * of records), so that is the floor the anatomy's 10,000/s hops compare with
 * (hop-floors.ts). The 1,000/s series runs first: it warms a fresh peer (connection, JIT)
 * better than its warm-up alone would before the idle 200/s series.
 */
export function standardPaces(scale = 1): Pace[] {
  const n = (v: number): number => Math.max(1, Math.round(v * scale))
  return [
    { ratePerSec: 1000, warmup: n(300), count: n(1000) },
    { ratePerSec: 200, warmup: n(60), count: n(400) },
    { ratePerSec: 10_000, warmup: n(1000), count: n(5000) },
  ]
}

/**
 * Whether a series measured a queue instead of a floor: the peer (or chain) could not keep up
 * with the rate, so the last messages arrived well after the last was sent. `drainMs` is the
 * time from the last send to the last arrival; a keeping-up series drains in about one hop
 * (plus, for a chain, the 20 ms at which its last process is polled), so more than 50 ms, or 5 %
 * of the series, means a queue built up.
 */
export function saturated(pace: Pace, drainMs: number): boolean {
  const seriesMs = ((pace.warmup + pace.count) / pace.ratePerSec) * 1000
  return drainMs > Math.max(50, 0.05 * seriesMs)
}
