/**
 * A task without the DSL, for the processor tests: processors wired parent to child, one
 * stream time for all of them (the largest timestamp piped in, advanced before the record is
 * processed, as a task does), stream-time punctuations, the task metrics the processors count
 * in, and state stores initialised against the same stream time.
 */
import type { Cancellable, Processor, ProcessorContext, PunctuationType } from '../../api/processor.js'
import type { StreamRecord } from '../../api/record.js'
import type { TaskMetrics } from '../../runtime/task-contract.js'
import type { StateStore, StateStoreContext } from '../../state/store-types.js'

interface Punctuation {
  readonly intervalMs: number
  readonly type: PunctuationType
  readonly callback: (timestampMs: number) => void
  next: number
  cancelled: boolean
}

export class HarnessNode<KIn, VIn, KOut, VOut> {
  /** Every record this node forwarded, in order. */
  readonly output: StreamRecord<KOut, VOut>[] = []

  constructor(
    readonly processor: Processor<KIn, VIn, KOut, VOut>,
    readonly children: readonly HarnessNode<KOut, VOut, unknown, unknown>[],
  ) {}
}

export class ProcessorHarness {
  streamTimeMs = -1
  wallClockMs = 0
  /** The task's metrics, which processors count in through ProcessorContext.metrics. */
  readonly metrics: TaskMetrics = { processed: 0, droppedLate: 0, outOfOrder: 0, skipped: 0 }
  private readonly stores = new Map<string, StateStore>()
  private readonly punctuations: Punctuation[] = []
  private recordTimestamp = -1

  addStore(store: StateStore): void {
    const context: StateStoreContext = {
      applicationId: 'app',
      taskId: { subtopology: 0, partition: 0 },
      stateDir: '/nonexistent-state-dir',
      streamTimeMs: () => this.streamTimeMs,
      recordTimestampMs: () => this.recordTimestamp,
    }
    store.init(context)
    this.stores.set(store.name, store)
  }

  store<S extends StateStore>(name: string): S {
    const store = this.stores.get(name)
    if (store === undefined) throw new Error(`no store '${name}' in the harness`)
    return store as S
  }

  /** Makes a node and calls its processor's init with a context whose forward feeds `children`. */
  node<KIn, VIn, KOut, VOut>(
    processor: Processor<KIn, VIn, KOut, VOut>,
    children: readonly HarnessNode<KOut, VOut, unknown, unknown>[] = [],
  ): HarnessNode<KIn, VIn, KOut, VOut> {
    const node = new HarnessNode(processor, children)
    processor.init?.(this.contextFor(node))
    return node
  }

  /** Pipes one input record into `node` at `timestamp` (stream time advances first). */
  pipe<K, V>(node: HarnessNode<K, V, unknown, unknown>, key: K | null, value: V | null, timestamp: number): void {
    this.streamTimeMs = Math.max(this.streamTimeMs, timestamp)
    this.recordTimestamp = timestamp
    node.processor.process({ key, value, timestamp, headers: [] })
    this.recordTimestamp = -1
    this.firePunctuations('stream-time', this.streamTimeMs)
  }

  advanceWallClock(ms: number): void {
    this.wallClockMs += ms
    this.firePunctuations('wall-clock', this.wallClockMs)
  }

  private contextFor<KOut, VOut>(node: HarnessNode<unknown, unknown, KOut, VOut>): ProcessorContext<KOut, VOut> {
    const harness = this
    return {
      applicationId: 'app',
      taskId: { subtopology: 0, partition: 0 },
      forward(record: StreamRecord<KOut, VOut>): void {
        node.output.push(record)
        for (const child of node.children) child.processor.process(record)
      },
      getStateStore: <S extends StateStore>(name: string) => harness.store<S>(name),
      schedule(intervalMs: number, type: PunctuationType, callback: (timestampMs: number) => void): Cancellable {
        const now = type === 'stream-time' ? harness.streamTimeMs : harness.wallClockMs
        const punctuation = { intervalMs, type, callback, next: now + intervalMs, cancelled: false }
        harness.punctuations.push(punctuation)
        return { cancel: () => (punctuation.cancelled = true) }
      },
      recordMetadata: () => undefined,
      currentStreamTimeMs: () => harness.streamTimeMs,
      currentSystemTimeMs: () => harness.wallClockMs,
      metrics: harness.metrics,
    }
  }

  private firePunctuations(type: PunctuationType, now: number): void {
    for (const punctuation of this.punctuations) {
      if (punctuation.cancelled || punctuation.type !== type || now < punctuation.next) continue
      punctuation.next = now + punctuation.intervalMs
      punctuation.callback(now)
    }
  }
}
