/**
 * The stream time of one stream–stream join in one task: the largest timestamp either side of
 * the join has seen. Both side processors of a task share one (Kafka's shared time tracker), so
 * a right record that moves time on closes the windows of waiting left records too. It counts
 * only the join's own input, not records the task dropped upstream of the join. It also keeps
 * a lower bound of what waits in the outer-shared store, which both sides write.
 */
import type { TaskId } from '../api/task-id.js'
import { taskIdString } from '../api/task-id.js'

export class JoinStreamTime {
  private current = -1
  /**
   * No record waits in the outer-shared store with an earlier timestamp (it may be earlier than
   * the oldest waiting one, after that matched), so the join skips the store until this may be
   * due. -Infinity when unknown: a store restored after a restart may hold anything.
   */
  private earliestWaiting = Number.NEGATIVE_INFINITY

  get timeMs(): number {
    return this.current
  }

  get earliestWaitingMs(): number {
    return this.earliestWaiting
  }

  /** A record started waiting. */
  waiting(timestampMs: number): void {
    if (timestampMs < this.earliestWaiting) this.earliestWaiting = timestampMs
  }

  /** The store was read up to `timestampMs` (exclusive): what waits there is at or after the given time. */
  scanned(earliestMs: number): void {
    this.earliestWaiting = earliestMs
  }

  /** Takes a record's timestamp; true when it moved stream time forward. */
  observe(timestampMs: number): boolean {
    if (timestampMs <= this.current) return false
    this.current = timestampMs
    return true
  }
}

/** Hands both side processors of one task the same JoinStreamTime, and a fresh one to a reopened task. */
export class JoinStreamTimes {
  private readonly byTask = new Map<string, JoinStreamTime>()

  acquire(taskId: TaskId): JoinStreamTime {
    const id = taskIdString(taskId)
    let time = this.byTask.get(id)
    if (time === undefined) {
      time = new JoinStreamTime()
      this.byTask.set(id, time)
    }
    return time
  }

  /** The first side to close forgets the task's time; the other still holds its reference. */
  release(taskId: TaskId, time: JoinStreamTime): void {
    const id = taskIdString(taskId)
    if (this.byTask.get(id) === time) this.byTask.delete(id)
  }
}
