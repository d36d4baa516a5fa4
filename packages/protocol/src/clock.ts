/**
 * The clock seam. Time-driven logic (ISR lag and shrink checks, metadata session leases, group
 * member session timeouts, log retention, retry backoff, producer linger) reads the time and sets
 * its timers through a `Clock` it is given, never through `Date.now` or the global timers, so a
 * test can drive time with `ManualClock` (manual-clock.ts) instead of sleeping. Production code
 * passes nothing and gets `systemClock`. The idea is Kafka's `Time` / `MockTime`.
 *
 * The clock is always a constructor option (or a function option), never a global: two brokers
 * in one test process can run on different clocks.
 */

/** A pending timer set through a `Clock`. */
export interface Timer {
  /** Stops the timer; a no-op once it fired (a one-shot timer) or was cancelled. */
  cancel(): void
  /** Lets the process exit while this timer is pending (Node's `unref`); returns the timer. */
  unref(): Timer
}

export interface Clock {
  /** Wall-clock milliseconds since the Unix epoch (`Date.now()`): timestamps, retention, deadlines. */
  nowMs(): number
  /**
   * Monotonic milliseconds from an arbitrary origin (`performance.now()`): for durations that
   * must not jump when the wall clock is set (session leases).
   */
  monotonicMs(): number
  /** Calls `fn` once, `ms` from now (a delay below 1 ms counts as 1 ms, as in Node). */
  setTimeout(fn: () => void, ms: number): Timer
  /** Calls `fn` every `ms` until the timer is cancelled. */
  setInterval(fn: () => void, ms: number): Timer
  /** Resolves `ms` from now; rejects with the signal's reason if it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
}

/**
 * `sleep` on any clock's timers: the one rule for an abortable wait (the timer is cancelled on
 * abort, and the abort listener removed when the timer fires).
 */
export async function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted === true) throw abortReason(signal)
  await new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      timer.cancel()
      reject(abortReason(signal!))
    }
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError')
}

/** A Node timer behind the `Timer` interface (`clearTimeout` also clears an interval in Node). */
class SystemTimer implements Timer {
  constructor(private readonly handle: NodeJS.Timeout) {}

  cancel(): void {
    clearTimeout(this.handle)
  }

  unref(): Timer {
    this.handle.unref()
    return this
  }
}

/** The real clock: `Date.now`, `performance.now` and Node's timers. */
export const systemClock: Clock = {
  nowMs: () => Date.now(),
  monotonicMs: () => performance.now(),
  setTimeout: (fn, ms) => new SystemTimer(setTimeout(fn, ms)),
  setInterval: (fn, ms) => new SystemTimer(setInterval(fn, ms)),
  sleep: async (ms, signal) => {
    await sleepOn(systemClock, ms, signal)
  },
}
