/**
 * A sampling loop that runs only while someone is looking: `demand()` (called by the route that
 * reads the samples) starts it, and it stops by itself once nobody asked for `idleAfterMs`. An
 * idle console therefore has no timer at all and sends the cluster nothing. Ticks never overlap
 * (the next is scheduled when one ends) and a failed tick is only a missing sample.
 */
export interface DemandLoopOptions {
  readonly intervalMs: number
  /** Stop after this long without demand (default one minute). */
  readonly idleAfterMs?: number
  readonly tick: () => Promise<void>
}

export class DemandLoop {
  private timer: NodeJS.Timeout | undefined
  private ticking = false
  private lastDemandMs = 0
  private closed = false

  constructor(private readonly options: DemandLoopOptions) {}

  /** Someone wants samples: run now if idle, and keep running for idleAfterMs. */
  demand(): void {
    this.lastDemandMs = Date.now()
    if (this.closed || this.timer !== undefined || this.ticking) return
    this.schedule(0)
  }

  /** Whether a tick is scheduled or running (false once idle: no timer left). */
  get active(): boolean {
    return this.timer !== undefined || this.ticking
  }

  close(): void {
    this.closed = true
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined
      if (this.closed || Date.now() - this.lastDemandMs > (this.options.idleAfterMs ?? 60_000)) return
      this.ticking = true
      void this.options
        .tick()
        .catch(() => {})
        .finally(() => {
          this.ticking = false
          if (!this.closed) this.schedule(this.options.intervalMs)
        })
    }, delayMs)
    // A console being closed must not be held open by its sampler.
    this.timer.unref()
  }
}

/** A fixed-capacity ring of samples, oldest first. */
export class SampleRing<T> {
  private readonly items: T[] = []
  constructor(private readonly capacity: number) {}
  push(item: T): void {
    this.items.push(item)
    if (this.items.length > this.capacity) this.items.splice(0, this.items.length - this.capacity)
  }
  toArray(): T[] {
    return this.items.slice()
  }
  last(): T | undefined {
    return this.items[this.items.length - 1]
  }
}
