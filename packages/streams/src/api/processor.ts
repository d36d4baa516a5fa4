/**
 * The low-level processor API (Kafka Streams' Processor API, in TypeScript). Every DSL
 * operator is built on it, and users may write their own with `stream.process(...)`.
 *
 * Processing is synchronous: `process` runs to completion before the task takes the next
 * record, and state store reads and writes inside it are synchronous (the stores buffer and
 * flush at commit). This keeps a task's order of effects the order of its input, which the
 * at-least-once and (later) exactly-once commit path relies on (docs/streams.md).
 */
import type { RecordMetadata, StreamRecord } from './record.js'
import type { StateStore } from '../state/store-types.js'
import type { TaskId } from './task-id.js'
import type { TaskMetrics } from '../runtime/task-contract.js'

export type PunctuationType = 'stream-time' | 'wall-clock'

export interface Cancellable {
  cancel(): void
}

export interface ProcessorContext<KOut, VOut> {
  readonly applicationId: string
  readonly taskId: TaskId
  /**
   * Sends a record to the children of this processor (to the named child only, when given).
   * The child runs before forward returns (depth first, as Kafka Streams does).
   */
  forward(record: StreamRecord<KOut, VOut>, childName?: string): void
  /** A store this processor was connected to when the topology was built (by its user-given name). */
  getStateStore<S extends StateStore>(name: string): S
  /**
   * Calls `callback(timestampMs)` every `intervalMs`: on stream time (when the task's stream
   * time passes each multiple, driven by records) or on wall-clock time (checked by the
   * runtime between records, so it fires late rather than concurrently with `process`).
   */
  schedule(intervalMs: number, type: PunctuationType, callback: (timestampMs: number) => void): Cancellable
  /** The input record being processed, or undefined inside a punctuation. */
  recordMetadata(): RecordMetadata | undefined
  /** The task's stream time: the largest record timestamp it has seen (-1 before the first). */
  currentStreamTimeMs(): number
  /** Wall-clock now (the test driver's virtual clock in tests). */
  currentSystemTimeMs(): number
  /**
   * Added by the joins part: the task's counters (the runtime's own TaskMetrics object), so an
   * operator that drops a record (late, or one a join cannot use) or takes one out of order
   * counts it where the runtime reports it. Absent: the context does not count.
   */
  readonly metrics?: TaskMetrics
}

export interface Processor<KIn, VIn, KOut = never, VOut = never> {
  init?(context: ProcessorContext<KOut, VOut>): void
  process(record: StreamRecord<KIn, VIn>): void
  close?(): void
}

/** Makes one processor instance per task (processors hold per-task state). */
export type ProcessorSupplier<KIn, VIn, KOut = never, VOut = never> = () => Processor<KIn, VIn, KOut, VOut>
