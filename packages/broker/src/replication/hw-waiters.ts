/**
 * Requests waiting for a partition offset to reach a target: acks=-1 produce requests waiting for
 * the high watermark to pass their batch, and DeleteRecords waiting for the low watermark (every
 * in-sync replica's log start offset) to reach the requested offset (Kafka's delayed-produce and
 * delayed-delete-records purgatories, one mechanism). Each
 * waiter has its own timeout timer (only while it waits: idle partitions hold nothing); the list
 * is bounded, and every waiter settles exactly once: released when the HW reaches its offset,
 * failed on leadership loss or close, or timed out with REQUEST_TIMED_OUT. The timeouts are set
 * on the partition's clock: through systemClock that is Node's timer plus one small wrapper object
 * per waiting batch, the only cost over a bare setTimeout.
 *
 * Two ways to wait: `watch` takes a callback that runs synchronously inside `release` (the call
 * that advanced the watermark), so an acks=all produce is answered in the same call as the
 * follower fetch that proved the ISR has its batch, not after a chain of promise resolutions
 * queued behind that fetch's own work (issue 16); `add` wraps it in a promise. A callback that
 * throws is a bug of its owner: it is reported to `onError` and never stops the other waiters
 * or the watermark's advance.
 */
import { SluiceError, systemClock, type Clock, type Timer } from '@sluice/protocol'

/** Called exactly once: with no error and the ISR size when released, or with the failure. */
export type WaiterCallback = (err: SluiceError | undefined, isrSize: number) => void

interface Waiter {
  readonly offset: bigint
  readonly done: WaiterCallback
  timer?: Timer
}

const MAX_WAITERS = 100_000

export class HighWatermarkWaiters {
  private waiters: Waiter[] = []

  /** `watermark` names what is waited for in the timeout message. */
  constructor(
    private readonly watermark = 'the high watermark',
    private readonly clock: Clock = systemClock,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  get size(): number {
    return this.waiters.length
  }

  add(offset: bigint, timeoutMs: number): Promise<{ isrSize: number }> {
    return new Promise((resolve, reject) =>
      this.watch(offset, timeoutMs, (err, isrSize) => (err === undefined ? resolve({ isrSize }) : reject(err))),
    )
  }

  /** Calls `done` once the watermark reaches `offset`, or with the failure (timeout, leadership loss). */
  watch(offset: bigint, timeoutMs: number, done: WaiterCallback): void {
    if (this.waiters.length >= MAX_WAITERS) {
      this.call(done, new SluiceError('REQUEST_TIMED_OUT', 'too many requests waiting for replication'), 0)
      return
    }
    const waiter: Waiter = { offset, done }
    waiter.timer = this.clock.setTimeout(
      () => {
        this.waiters = this.waiters.filter((w) => w !== waiter)
        this.call(
          done,
          new SluiceError('REQUEST_TIMED_OUT', `${this.watermark} did not reach ${offset} within ${timeoutMs} ms`),
          0,
        )
      },
      Math.max(1, timeoutMs),
    )
    this.waiters.push(waiter)
  }

  /** Releases every waiter whose offset is <= `highWatermark` (the watermark waited for). */
  release(highWatermark: bigint, isrSize: number): void {
    if (this.waiters.length === 0) return
    let still: Waiter[] | undefined
    const all = this.waiters
    // The usual case: every waiter is released, and no array is built for the rest.
    for (let i = 0; i < all.length; i++) {
      const w = all[i]!
      if (w.offset > highWatermark) {
        still ??= []
        still.push(w)
      }
    }
    this.waiters = still ?? []
    for (const w of all) {
      if (w.offset > highWatermark) continue
      w.timer?.cancel()
      this.call(w.done, undefined, isrSize)
    }
  }

  failAll(err: SluiceError): void {
    const all = this.waiters
    this.waiters = []
    for (const w of all) {
      w.timer?.cancel()
      this.call(w.done, err, 0)
    }
  }

  private call(done: WaiterCallback, err: SluiceError | undefined, isrSize: number): void {
    try {
      done(err, isrSize)
    } catch (e) {
      this.onError(e)
    }
  }
}
