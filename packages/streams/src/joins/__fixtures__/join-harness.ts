/**
 * A small stand-in for a task, for the join tests (not part of the package build): a
 * ProcessorContext whose forward captures records, whose stream time is the largest timestamp
 * it was given, with real stores from `Stores` (in memory, no changelog) and the task's
 * counters. Processors are added by name and fed records by name. What logged stores write
 * to their changelogs is kept per store (`changelogs`), and a new harness can start its stores
 * from them (`restoreFrom`), as a task restarted after a crash would.
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../../api/processor.js'
import type { StreamRecord } from '../../api/record.js'
import type { Serde } from '../../api/serde.js'
import type { TaskMetrics } from '../../runtime/task-contract.js'
import type { ChangelogRecord, StateStore, StateStoreContext, StoreBuilder } from '../../state/store-types.js'

export const stringSerde: Serde<string> = {
  name: 'string',
  serialize: (value) => Buffer.from(value, 'utf8'),
  deserialize: (data) => data.toString('utf8'),
}

export interface Output<K, V> {
  readonly key: K | null
  readonly value: V | null
  readonly timestamp: number
}

export class JoinHarness<KOut, VOut> {
  readonly output: Output<KOut, VOut>[] = []
  readonly metrics: TaskMetrics = { processed: 0, droppedLate: 0, outOfOrder: 0, skipped: 0 }
  private readonly stores = new Map<string, StateStore>()
  private readonly processors = new Map<string, Processor<unknown, unknown, KOut, VOut>>()
  readonly changelogs = new Map<string, ChangelogRecord[]>()
  private streamTime = -1
  private recordTime = -1

  constructor(
    builders: readonly StoreBuilder<StateStore>[],
    restoreFrom?: ReadonlyMap<string, readonly ChangelogRecord[]>,
  ) {
    for (const builder of builders) {
      const logged: ChangelogRecord[] = []
      this.changelogs.set(builder.name, logged)
      const store = builder.build()
      store.init({
        applicationId: 'app',
        taskId: { subtopology: 0, partition: 0 },
        stateDir: '/nonexistent-state-dir',
        changelog: { send: (record) => logged.push(record) },
        streamTimeMs: () => this.streamTime,
        recordTimestampMs: () => this.recordTime,
      } satisfies StateStoreContext)
      store.restoreBatch(restoreFrom?.get(builder.name) ?? [])
      this.stores.set(builder.name, store)
    }
  }

  store<S extends StateStore>(name: string): S {
    const store = this.stores.get(name)
    if (store === undefined) throw new Error(`no store '${name}' in the harness`)
    return store as S
  }

  add<KIn, VIn>(name: string, supplier: ProcessorSupplier<KIn, VIn, KOut, VOut>): this {
    const processor = supplier() as Processor<unknown, unknown, KOut, VOut>
    processor.init?.(this.context())
    this.processors.set(name, processor)
    return this
  }

  /** Feeds one record to the named processor, as a task would (stream time first). */
  send(name: string, key: unknown, value: unknown, timestamp: number): this {
    const processor = this.processors.get(name)
    if (processor === undefined) throw new Error(`no processor '${name}' in the harness`)
    this.streamTime = Math.max(this.streamTime, timestamp)
    this.recordTime = timestamp
    this.metrics.processed++
    processor.process({ key, value, timestamp, headers: [] } as StreamRecord<unknown, unknown>)
    this.recordTime = -1
    return this
  }

  /** The output captured since the last call, and forgets it. */
  take(): Output<KOut, VOut>[] {
    return this.output.splice(0, this.output.length)
  }

  /** Flushes the stores, as the task does at a commit (window stores purge expired windows then). */
  flush(): void {
    for (const store of this.stores.values()) store.flush()
  }

  close(): void {
    for (const processor of this.processors.values()) processor.close?.()
    for (const store of this.stores.values()) store.close()
  }

  private context(): ProcessorContext<KOut, VOut> {
    return {
      applicationId: 'app',
      taskId: { subtopology: 0, partition: 0 },
      metrics: this.metrics,
      forward: (record: StreamRecord<KOut, VOut>) => {
        this.output.push({ key: record.key, value: record.value, timestamp: record.timestamp })
      },
      getStateStore: <S extends StateStore>(name: string) => this.store<S>(name),
      schedule: () => {
        throw new Error('the join harness does not punctuate')
      },
      recordMetadata: () => undefined,
      currentStreamTimeMs: () => this.streamTime,
      currentSystemTimeMs: () => 0,
    }
  }
}
