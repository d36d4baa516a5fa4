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
 */
import { SluiceError, systemClock, type Clock, type Timer } from '@sluice/protocol'

interface Waiter {
  readonly offset: bigint
  readonly resolve: (r: { isrSize: number }) => void
  readonly reject: (err: SluiceError) => void
  timer?: Timer
}

const MAX_WAITERS = 100_000

export class HighWatermarkWaiters {
  private waiters: Waiter[] = []

  /** `watermark` names what is waited for in the timeout message. */
  constructor(
    private readonly watermark = 'the high watermark',
    private readonly clock: Clock = systemClock,
  ) {}

  get size(): number {
    return this.waiters.length
  }

  add(offset: bigint, timeoutMs: number): Promise<{ isrSize: number }> {
    if (this.waiters.length >= MAX_WAITERS)
      return Promise.reject(new SluiceError('REQUEST_TIMED_OUT', 'too many requests waiting for replication'))
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { offset, resolve, reject }
      waiter.timer = this.clock.setTimeout(
        () => {
          this.waiters = this.waiters.filter((w) => w !== waiter)
          reject(
            new SluiceError('REQUEST_TIMED_OUT', `${this.watermark} did not reach ${offset} within ${timeoutMs} ms`),
          )
        },
        Math.max(1, timeoutMs),
      )
      this.waiters.push(waiter)
    })
  }

  /** Resolves every waiter whose offset is <= `highWatermark` (the watermark waited for). */
  release(highWatermark: bigint, isrSize: number): void {
    if (this.waiters.length === 0) return
    const still: Waiter[] = []
    for (const w of this.waiters) {
      if (w.offset <= highWatermark) {
        w.timer?.cancel()
        w.resolve({ isrSize })
      } else still.push(w)
    }
    this.waiters = still
  }

  failAll(err: SluiceError): void {
    const all = this.waiters
    this.waiters = []
    for (const w of all) {
      w.timer?.cancel()
      w.reject(err)
    }
  }
}
