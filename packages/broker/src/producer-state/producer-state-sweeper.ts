/**
 * The one periodic timer for producer state in this process (so one per broker, also when tests
 * run several brokers in one process): every SWEEP_INTERVAL_MS it drops producer ids idle longer
 * than producer.id.expiration.ms and snapshots partitions whose state moved, which bounds the
 * log replay after a crash. Only replicas whose state is loaded are registered, so idle
 * partitions cost nothing; the timer is unref'd and stops when nothing is registered.
 */
export const SWEEP_INTERVAL_MS = 60_000

interface Sweepable {
  sweep(): Promise<void>
}

class ProducerStateSweeper {
  private readonly members = new Set<Sweepable>()
  private timer: NodeJS.Timeout | undefined
  private running = false

  register(m: Sweepable): void {
    this.members.add(m)
    if (this.timer === undefined) {
      this.timer = setInterval(() => {
        void this.runOnce()
      }, SWEEP_INTERVAL_MS)
      this.timer.unref()
    }
  }

  unregister(m: Sweepable): void {
    this.members.delete(m)
    if (this.members.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer)
      this.timer = undefined
    }
  }

  get size(): number {
    return this.members.size
  }

  /** One pass over every registered replica, one at a time (bounded I/O). @internal tests */
  async runOnce(): Promise<void> {
    if (this.running) return
    this.running = true
    try {
      for (const m of [...this.members]) await m.sweep().catch(() => undefined)
    } finally {
      this.running = false
    }
  }
}

export const producerStateSweeper = new ProducerStateSweeper()
