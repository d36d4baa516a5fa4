/**
 * The counters a join bumps in the task's metrics (ProcessorContext.metrics, absent in a
 * context that does not count): late records, records it cannot use, out-of-order records it
 * still processed. Dropped records are counted, never silently lost (docs/streams.md, Joins).
 */
import type { ProcessorContext } from '../api/processor.js'

export function countLate(context: ProcessorContext<unknown, unknown>): void {
  if (context.metrics !== undefined) context.metrics.droppedLate++
}

export function countOutOfOrder(context: ProcessorContext<unknown, unknown>): void {
  if (context.metrics !== undefined) context.metrics.outOfOrder++
}

export function countInvalid(context: ProcessorContext<unknown, unknown>): void {
  if (context.metrics !== undefined) context.metrics.droppedInvalid = (context.metrics.droppedInvalid ?? 0) + 1
}
