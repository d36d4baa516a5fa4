/**
 * A `Clock` that tests move by hand (Kafka's `MockTime`): time stands still until `advance(ms)`,
 * which fires every timer that falls due, in due order (timers due at the same moment in the
 * order they were set), each with the clock reading its due time. A timer set by a firing timer
 * fires in the same `advance` when it falls due within it. Nothing here touches real time, so a
 * test on a ManualClock is deterministic.
 *
 * `advance` is synchronous: a timer callback that starts async work (a promise) has only started
 * when `advance` returns; the test awaits that work's outcome the usual way.
 */
import { sleepOn, type Clock, type Timer } from './clock.js'

class ManualTimer implements Timer {
  constructor(
    readonly clock: ManualClock,
    readonly fn: () => void,
    public dueMs: number,
    readonly everyMs: number | undefined,
    readonly seq: number,
  ) {}

  cancel(): void {
    this.clock.cancelTimer(this)
  }

  unref(): Timer {
    return this
  }
}

export class ManualClock implements Clock {
  private wallMs: number
  private elapsedMs = 0
  private seq = 0
  /** Pending timers, sorted by due time, then by the order they were set. */
  private readonly timers: ManualTimer[] = []

  /** `startWallMs` is what `nowMs()` reads first; `monotonicMs()` starts at 0. */
  constructor(startWallMs = 0) {
    this.wallMs = startWallMs
  }

  nowMs(): number {
    return this.wallMs
  }

  monotonicMs(): number {
    return this.elapsedMs
  }

  setTimeout(fn: () => void, ms: number): Timer {
    return this.add(fn, ms, undefined)
  }

  setInterval(fn: () => void, ms: number): Timer {
    return this.add(fn, ms, Math.max(1, ms))
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    await sleepOn(this, ms, signal)
  }

  /** Timers set and not yet fired (one-shot) or cancelled. */
  get pendingTimers(): number {
    return this.timers.length
  }

  /** Moves time forward by `ms`, firing the timers that fall due on the way (see the file comment). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`cannot advance a clock by ${ms} ms`)
    const end = this.elapsedMs + ms
    for (let next = this.timers[0]; next !== undefined && next.dueMs <= end; next = this.timers[0]) {
      this.timers.shift()
      this.moveTo(next.dueMs)
      if (next.everyMs !== undefined) {
        next.dueMs += next.everyMs
        this.insert(next)
      }
      next.fn()
    }
    this.moveTo(end)
  }

  /** @internal ManualTimer.cancel */
  cancelTimer(timer: ManualTimer): void {
    const i = this.timers.indexOf(timer)
    if (i >= 0) this.timers.splice(i, 1)
  }

  private add(fn: () => void, ms: number, everyMs: number | undefined): Timer {
    const timer = new ManualTimer(this, fn, this.elapsedMs + (ms >= 1 ? ms : 1), everyMs, this.seq++)
    this.insert(timer)
    return timer
  }

  private insert(timer: ManualTimer): void {
    let i = this.timers.length
    while (
      i > 0 &&
      (this.timers[i - 1]!.dueMs > timer.dueMs ||
        (this.timers[i - 1]!.dueMs === timer.dueMs && this.timers[i - 1]!.seq > timer.seq))
    )
      i--
    this.timers.splice(i, 0, timer)
  }

  private moveTo(elapsedMs: number): void {
    this.wallMs += elapsedMs - this.elapsedMs
    this.elapsedMs = elapsedMs
  }
}
