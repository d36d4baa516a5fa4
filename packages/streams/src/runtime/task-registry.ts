/**
 * The tasks this instance runs, and the route from an input partition to its task. Only the
 * serial lane (serial-work.ts) changes it.
 */
import type { TopicPartition } from '@sluice/client'
import type { ActiveTask } from './active-task.js'
import { tpKey } from './record-sender.js'

export class TaskRegistry {
  private readonly tasks = new Map<string, ActiveTask>()
  private readonly byPartition = new Map<string, ActiveTask>()

  add(task: ActiveTask): void {
    this.tasks.set(task.key, task)
    for (const tp of task.partitions) this.byPartition.set(tpKey(tp.topic, tp.partition), task)
  }

  remove(task: ActiveTask): void {
    this.tasks.delete(task.key)
    for (const tp of task.partitions) {
      const k = tpKey(tp.topic, tp.partition)
      if (this.byPartition.get(k) === task) this.byPartition.delete(k)
    }
  }

  get(key: string): ActiveTask | undefined {
    return this.tasks.get(key)
  }

  forPartition(topic: string, partition: number): ActiveTask | undefined {
    return this.byPartition.get(tpKey(topic, partition))
  }

  /** The tasks owning any of these partitions. */
  owning(tps: readonly TopicPartition[]): ActiveTask[] {
    const out = new Set<ActiveTask>()
    for (const tp of tps) {
      const t = this.byPartition.get(tpKey(tp.topic, tp.partition))
      if (t !== undefined) out.add(t)
    }
    return [...out]
  }

  all(): ActiveTask[] {
    return [...this.tasks.values()]
  }

  get size(): number {
    return this.tasks.size
  }
}
