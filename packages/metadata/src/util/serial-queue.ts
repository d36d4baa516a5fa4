/**
 * Runs async jobs one at a time in arrival order: the write lock of the store and the controller.
 * A failing job does not stop the jobs queued after it.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()
  private pending = 0

  run<T> (job: () => Promise<T> | T): Promise<T> {
    this.pending += 1
    const result = this.tail.then(job)
    this.tail = result.then(() => { this.pending -= 1 }, () => { this.pending -= 1 })
    return result
  }

  /** Jobs queued or running. */
  get size (): number { return this.pending }

  /** Resolves once every job queued so far has finished. */
  async idle (): Promise<void> {
    await this.tail
  }
}
