/**
 * The stream time of one stream–stream join in one task: the largest timestamp either side of
 * the join has seen. Both side processors of a task share one (Kafka's shared time tracker), so
 * a right record that moves time on closes the windows of waiting left records too. It counts
 * only the join's own input, not records the task dropped upstream of the join.
 */
import type { TaskId } from '../api/task-id.js'
import { taskIdString } from '../api/task-id.js'

export class JoinStreamTime {
  private current = -1

  get timeMs(): number {
    return this.current
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
