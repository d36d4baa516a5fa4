/**
 * Runs one fetched batch (records of one input partition, in offset order) through its task,
 * and applies the error policy: a record a source serde cannot read (StreamsError 'SERDE') is
 * skipped and counted under 'log-and-continue'; anything else, and every SERDE error under
 * 'fail', stops the batch with a typed error naming the task and the record. The failing record
 * is not marked processed, so no commit can pass it.
 *
 * A stamped record of a repartition topic whose position the task applied already (a re-run
 * upstream wrote it again: applied-positions.ts) is skipped, counted in
 * `metrics.duplicatesSkipped`, and marked processed like any other.
 */
import type { ConsumerBatch, ConsumerMessage, Logger } from '@sluice/client'
import { isStreamsError, StreamsError } from '../errors.js'
import type { ActiveTask } from './active-task.js'
import { tpKey } from './record-sender.js'
import type { DeserializationErrorPolicy } from './streams-config.js'

export interface BatchContext {
  readonly policy: DeserializationErrorPolicy
  readonly logger: Logger
  /** Checked between records: true when a wall-clock punctuation is due (one clock read and one comparison). */
  punctuationDue(nowMs: number): boolean
  /** Runs the due wall-clock punctuations of every task. */
  punctuate(nowMs: number): void
}

export function processBatch(t: ActiveTask, batch: ConsumerBatch, ctx: BatchContext): void {
  const { topic, partition, messages } = batch
  const tp = { topic, partition }
  // The task's lag (ActiveTask.lag()) is measured against the end the fetch saw.
  t.highWatermarks.set(tpKey(topic, partition), batch.highWatermark)
  const positions = t.applied.forPartition(topic, partition)
  let last: bigint | undefined
  try {
    for (const m of messages) {
      const stamped = positions?.check(m.headers)
      if (stamped?.duplicate === true) {
        t.task.metrics.duplicatesSkipped = (t.task.metrics.duplicatesSkipped ?? 0) + 1
      } else {
        processRecord(t, topic, partition, m, ctx)
        if (stamped !== undefined) positions!.advance(stamped.stamp)
      }
      last = m.offset
      const now = Date.now()
      if (ctx.punctuationDue(now)) ctx.punctuate(now)
    }
  } finally {
    // Once per batch rather than per record: the records before a failing one count as processed.
    if (last !== undefined) t.processed.set(tpKey(topic, partition), { tp, offset: last })
  }
}

/** One record through its task, under the error policy. */
function processRecord(t: ActiveTask, topic: string, partition: number, m: ConsumerMessage, ctx: BatchContext): void {
  const offset = m.offset
  try {
    t.task.process({
      topic,
      partition,
      offset,
      key: m.key,
      value: m.value,
      timestamp: Number(m.timestamp),
      headers: m.headers,
    })
  } catch (err) {
    if (ctx.policy === 'log-and-continue' && isStreamsError(err, 'SERDE')) {
      t.task.metrics.skipped++
      ctx.logger.warn(
        { err, task: t.key, topic, partition, offset: String(offset) },
        'skipped a record its serde could not read (deserializationErrors: log-and-continue)',
      )
    } else {
      throw failedRecord(t, topic, partition, offset, err)
    }
  }
}

function failedRecord(t: ActiveTask, topic: string, partition: number, offset: bigint, err: unknown): StreamsError {
  const serde = isStreamsError(err, 'SERDE')
  const reason = err instanceof Error ? err.message : String(err)
  return new StreamsError(
    serde ? 'SERDE' : 'RUNTIME',
    `task ${t.key} failed on ${topic}/${partition} offset ${offset}${serde ? ' (a serde could not read it)' : ''}: ${reason}`,
    { cause: err, details: { taskId: t.key, topic, partition, offset: String(offset) } },
  )
}
