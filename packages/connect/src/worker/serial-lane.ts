/**
 * Runs async work one piece at a time, in order: a worker's assignments, config changes and
 * restarts never interleave, so a task is never started and stopped at once.
 */
export class SerialLane {
  private tail: Promise<unknown> = Promise.resolve()

  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn)
    this.tail = next.catch(() => {})
    return next
  }
}
