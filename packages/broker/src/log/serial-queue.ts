/**
 * Runs async tasks one at a time in submission order (the single writer of a partition log).
 * A failed task rejects its own promise only; the queue moves on.
 */
export class SerialQueue {
  private tail: Promise<void> = Promise.resolve()
  private pending = 0

  /** Tasks queued or running. */
  get size (): number { return this.pending }

  run<T> (task: () => Promise<T>): Promise<T> {
    this.pending++
    const result = this.tail.then(task)
    this.tail = result.then(() => { this.pending-- }, () => { this.pending-- })
    return result
  }

  /** Resolves once every task submitted so far has finished. */
  async drain (): Promise<void> {
    await this.tail
  }
}
