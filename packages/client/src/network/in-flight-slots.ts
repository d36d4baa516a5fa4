/**
 * The in-flight window of one connection: at most `max` requests outstanding, callers beyond it
 * wait in arrival order, and a released slot is handed straight to the oldest waiter. Shared by
 * the gRPC request stream and the Kafka data channel, which bound their requests the same way.
 * After close() every waiter is woken and acquire() returns at once: the owner then sees its own
 * closed state, fails the request and calls release(), which never takes the count below zero.
 */
export class InFlightSlots {
  private used = 0
  private readonly waiters: Array<() => void> = []
  private closed = false

  constructor(private readonly max: number) {}

  get inUse(): number {
    return this.used
  }

  get hasFree(): boolean {
    return this.used < this.max
  }

  async acquire(): Promise<void> {
    if (this.closed) return
    if (this.used < this.max) {
      this.used++
      return
    }
    await new Promise<void>((resolve) => {
      this.waiters.push(resolve)
    })
  }

  release(): void {
    const next = this.waiters.shift()
    if (next !== undefined)
      next() // hand the slot over
    else this.used = Math.max(0, this.used - 1)
  }

  close(): void {
    this.closed = true
    for (const w of this.waiters.splice(0)) w()
  }
}
