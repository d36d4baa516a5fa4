/**
 * Runs async tasks one at a time in submission order: the single writer of a partition log, the
 * write lock of the metadata store and the controller's event loop. A failed task rejects its own
 * promise only; the queue moves on to the tasks queued after it.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()
  private pending = 0

  /** Tasks queued or running. */
  get size(): number {
    return this.pending
  }

  /** Queues `task`; a synchronous task is allowed and still runs after every earlier one. */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    this.pending++
    const result = this.tail.then(task)
    this.tail = result.then(
      () => {
        this.pending--
      },
      () => {
        this.pending--
      },
    )
    return result
  }

  /** Resolves once every task submitted so far has finished. */
  async drain(): Promise<void> {
    await this.tail
  }
}
