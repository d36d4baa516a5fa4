/**
 * One lane for everything that touches the tasks: processing an input batch, a commit, a
 * wall-clock punctuation, a rebalance. Each runs to completion before the next starts, so a
 * commit never sees a task half-way through a batch, and a punctuation never runs while a
 * commit waits for acknowledgements. Work is run in the order it was queued.
 */
export class SerialWork {
  private tail: Promise<unknown> = Promise.resolve()

  /** Runs `fn` after everything queued before it; rejects with what `fn` throws (the lane goes on). */
  run<T>(fn: () => Promise<T> | T): Promise<T> {
    const next = this.tail.then(fn)
    this.tail = next.catch(() => {})
    return next
  }
}
