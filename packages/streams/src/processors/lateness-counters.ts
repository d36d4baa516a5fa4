/**
 * How a windowed processor tells on-time, out-of-order and late records apart, and counts them.
 *
 * Stream time is the task's (ProcessorContext.currentStreamTimeMs: the largest record
 * timestamp the task has seen), taken together with the record itself so the answer is the
 * same whether the task advances stream time before or after calling the processor. A record
 * is out of order when it is older than stream time; whether it is late (dropped) depends on
 * its windows, which each processor decides with its window definition's closeTimeMs.
 *
 * The counts are kept on the processor (for tests and describe()) and passed to the task's
 * metrics through the optional ProcessorContext.metrics (the task's own TaskMetrics).
 */
import type { ProcessorContext } from '../api/processor.js'
import type { StreamRecord } from '../api/record.js'

export class LatenessCounters {
  /** Records dropped because every window they belong to was closed. */
  droppedLate = 0
  /** Records older than stream time that were still processed (inside the grace period). */
  outOfOrder = 0
  /** Records with a null key or value, or a negative timestamp (no window holds them; as in Kafka). */
  skipped = 0

  private context: ProcessorContext<unknown, unknown> | undefined

  attach(context: ProcessorContext<unknown, unknown>): void {
    this.context = context
  }

  /** The stream time a decision about `record` is made at. */
  streamTimeFor(record: StreamRecord<unknown, unknown>): number {
    const taskStreamTime = this.context?.currentStreamTimeMs() ?? -1
    return Math.max(taskStreamTime, record.timestamp)
  }

  isOutOfOrder(record: StreamRecord<unknown, unknown>): boolean {
    return record.timestamp < (this.context?.currentStreamTimeMs() ?? -1)
  }

  countDroppedLate(): void {
    this.droppedLate++
    if (this.context?.metrics !== undefined) this.context.metrics.droppedLate++
  }

  countOutOfOrder(): void {
    this.outOfOrder++
    if (this.context?.metrics !== undefined) this.context.metrics.outOfOrder++
  }

  countSkipped(): void {
    this.skipped++
  }
}
