/**
 * A node of a running task and the ProcessorContext its processor sees. `forward` calls the
 * children before it returns (depth first, as Kafka Streams), so a record's whole effect is
 * done before the task takes the next one (api/processor.ts).
 */
import type { Cancellable, ProcessorContext, PunctuationType } from '../api/processor.js'
import type { RecordMetadata, StreamRecord } from '../api/record.js'
import type { TaskId } from '../api/task-id.js'
import { StreamsError } from '../errors.js'
import type { TaskMetrics } from '../runtime/task-contract.js'
import type { StateStore } from '../state/store-types.js'

export type AnyRecord = StreamRecord<unknown, unknown>

export class TaskNode {
  readonly children: TaskNode[] = []
  /** Set once the task has made the node's processor (sources and sinks pass records on themselves). */
  handle: (record: AnyRecord) => void = (record) => this.forwardToChildren(record)

  constructor(readonly name: string) {}

  forwardToChildren(record: AnyRecord, childName?: string): void {
    if (childName === undefined) {
      for (const child of this.children) child.handle(record)
      return
    }
    const child = this.children.find((c) => c.name === childName)
    if (child === undefined) {
      throw new StreamsError('TOPOLOGY', `${this.name}: forward to '${childName}', which is not one of its children`, {
        details: { operator: this.name, child: childName },
      })
    }
    child.handle(record)
  }
}

/** What a processor's context reads from its task. */
export interface TaskState {
  readonly applicationId: string
  readonly taskId: TaskId
  readonly metrics: TaskMetrics
  readonly stores: ReadonlyMap<string, StateStore>
  streamTimeMs(): number
  nowMs(): number
  currentMetadata(): RecordMetadata | undefined
  schedule(intervalMs: number, type: PunctuationType, run: (timestampMs: number) => void): Cancellable
  /** The instance's global store of that name (TaskDeps.globalStore). */
  globalStore(name: string): StateStore | undefined
}

/** The DSL's own processors reach the task's metrics through this (users see ProcessorContext only). */
export interface InternalProcessorContext<K, V> extends ProcessorContext<K, V> {
  readonly metrics: TaskMetrics
  /** The processor's node name, for error messages. */
  readonly nodeName: string
}

export class NodeProcessorContext implements InternalProcessorContext<unknown, unknown> {
  constructor(
    private readonly node: TaskNode,
    private readonly storeNames: readonly string[],
    private readonly task: TaskState,
    private readonly globalStoreNames: readonly string[] = [],
  ) {}

  get applicationId(): string {
    return this.task.applicationId
  }
  get taskId(): TaskId {
    return this.task.taskId
  }
  get metrics(): TaskMetrics {
    return this.task.metrics
  }
  get nodeName(): string {
    return this.node.name
  }

  forward(record: AnyRecord, childName?: string): void {
    this.node.forwardToChildren(record, childName)
  }

  getStateStore<S extends StateStore>(name: string): S {
    if (this.globalStoreNames.includes(name)) {
      const global = this.task.globalStore(name)
      if (global !== undefined) return global as S
      throw new StreamsError(
        'STATE',
        `${this.node.name}: the global store '${name}' is not available on this instance`,
        {
          details: { operator: this.node.name, store: name },
        },
      )
    }
    const store = this.storeNames.includes(name) ? this.task.stores.get(name) : undefined
    if (store === undefined) {
      throw new StreamsError(
        'TOPOLOGY',
        `${this.node.name}: not connected to state store '${name}' (name it in process(..., { stores }))`,
        { details: { operator: this.node.name, store: name } },
      )
    }
    return store as S
  }

  schedule(intervalMs: number, type: PunctuationType, callback: (timestampMs: number) => void): Cancellable {
    if (!Number.isSafeInteger(intervalMs) || intervalMs <= 0) {
      throw new StreamsError('CONFIG', `${this.node.name}: a punctuation interval must be a positive integer (ms)`)
    }
    if (type !== 'stream-time' && type !== 'wall-clock') {
      throw new StreamsError('CONFIG', `${this.node.name}: punctuation type must be 'stream-time' or 'wall-clock'`)
    }
    return this.task.schedule(intervalMs, type, callback)
  }

  recordMetadata(): RecordMetadata | undefined {
    return this.task.currentMetadata()
  }

  currentStreamTimeMs(): number {
    return this.task.streamTimeMs()
  }

  currentSystemTimeMs(): number {
    return this.task.nowMs()
  }
}
