/**
 * Safe points of a group consumer: rebalance work (revoking, assigning, listener calls) runs
 * only while the application holds no message of the consumer, as Kafka runs it inside poll().
 *
 * - `run(fn)`: runs fn now if the application holds nothing (or the consumer is closing), else
 *   queues it for the moment the application returns control.
 * - While a job runs, delivery hands nothing out: `takeControl()` waits for running and queued
 *   jobs, then marks the application as holding a message in the same synchronous step, so no
 *   job can start in between.
 * - `reached()`: the application returned control (a "poll"); queued jobs run now, in order.
 */
import type { SubscriptionState } from '../subscription.js'

interface Job {
  fn: () => Promise<unknown>
  resolve: (v: unknown) => void
  reject: (e: unknown) => void
}

export class SafePoints {
  /** True from handing a message (or batch) out until the application returns control. */
  appHoldsControl = false
  /** When the application last returned control (the max poll interval counts from here). */
  lastPollMs = Date.now()
  private jobs: Job[] = []
  private running = 0

  constructor(
    private readonly subs: SubscriptionState,
    private readonly closing: () => boolean,
    private readonly onPoll: () => void,
  ) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.appHoldsControl || this.closing()) return await this.exclusive(fn)
    return await new Promise<T>((resolve, reject) => {
      this.jobs.push({ fn, resolve: resolve as (v: unknown) => void, reject })
    })
  }

  async reached(): Promise<void> {
    this.appHoldsControl = false
    this.lastPollMs = Date.now()
    await this.drain()
    this.onPoll()
  }

  async takeControl(): Promise<void> {
    while (this.running > 0 || this.jobs.length > 0) {
      if (this.jobs.length > 0) await this.drain()
      else await this.subs.changed(100)
    }
    this.appHoldsControl = true
  }

  /** Runs every queued job now (close: nobody will return control any more). */
  async drain(): Promise<void> {
    while (this.jobs.length > 0) {
      const job = this.jobs.shift()!
      await this.exclusive(job.fn).then(job.resolve, job.reject)
    }
  }

  private async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    this.running++
    try {
      return await fn()
    } finally {
      this.running--
      this.subs.notify()
    }
  }
}
