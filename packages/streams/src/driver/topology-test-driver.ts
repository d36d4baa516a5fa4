/**
 * TopologyTestDriver: runs a topology without a broker, on virtual time, with the same
 * TopologyPlan and StreamTask code the runtime runs (runtime/task-contract.ts). Every topic has
 * one partition, so there is one task per sub-topology.
 *
 * A record piped in goes to the task reading its topic; what the tasks send is kept per topic
 * for output topics to read, and a record sent to a topic that a task or a global table reads
 * (a repartition topic, or a user topic read again) is fed back to it after the record that made
 * it, as Kafka's driver does. After each input the driver flushes the tasks (a commit), so
 * cached tables forward their updates; changelog writes are kept per store for inspection.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { StreamHeader } from '../api/record.js'
import type { Serde } from '../api/serde.js'
import { StreamsError } from '../errors.js'
import type { SinkRecord, SourceRecord, StreamTask, TopologyPlan } from '../runtime/task-contract.js'
import { GlobalStores } from '../runtime/global-state-stores.js'
import type { ChangelogRecord, KeyValueStore, StateStore } from '../state/store-types.js'
import type { Topology } from '../topology/topology.js'
import { type DriverInput, type DriverOutput, TestInputTopic, TestOutputTopic } from './test-topics.js'

export interface TopologyTestDriverOptions {
  /** Default 'test-app': internal topics are `<applicationId>-<name>-repartition|changelog`. */
  readonly applicationId?: string
  /** The virtual wall clock's start (ms); default 0. */
  readonly initialWallClockMs?: number
  /** Where persistent stores keep their files; default a temp directory removed by close(). */
  readonly stateDir?: string
  /** What a task does with input its serdes cannot read (default 'fail'). */
  readonly onDeserializationError?: 'fail' | 'skip'
}

/** Feeding back records a topology writes to its own inputs ends after this many rounds (a cycle). */
const MAX_FEEDBACK_RECORDS = 1_000_000

export class TopologyTestDriver implements DriverInput, DriverOutput {
  readonly plan: TopologyPlan
  private readonly tasks = new Map<string, StreamTask>()
  /** Opened before the tasks, as the runtime does (runtime/global-state-stores.ts). */
  private global: GlobalStores | undefined
  private readonly outputs = new Map<string, SinkRecord[]>()
  private readonly changelogs = new Map<string, ChangelogRecord[]>()
  private readonly offsets = new Map<string, bigint>()
  private readonly changelogStores = new Map<string, string>()
  private readonly pending: SinkRecord[] = []
  private readonly ownStateDir: string | undefined
  private wallClock: number
  private closed = false

  constructor(topology: Topology, opts: TopologyTestDriverOptions = {}) {
    const applicationId = opts.applicationId ?? 'test-app'
    this.plan = topology.plan(applicationId)
    this.wallClock = opts.initialWallClockMs ?? 0
    this.ownStateDir = opts.stateDir === undefined ? mkdtempSync(join(tmpdir(), 'sluice-ttd-')) : undefined
    const stateDir = opts.stateDir ?? (this.ownStateDir as string)
    for (const t of this.plan.internalTopics) {
      if (t.kind === 'changelog')
        this.changelogStores.set(t.name, t.name.slice(applicationId.length + 1, -'-changelog'.length))
    }
    try {
      this.open(applicationId, stateDir, opts)
    } catch (e) {
      // A topology that fails to start (a processor's init throws) leaves no task or directory behind.
      try {
        this.close()
      } catch {
        // The first error is the one worth reporting.
      }
      throw e
    }
  }

  private open(applicationId: string, stateDir: string, opts: TopologyTestDriverOptions): void {
    const sender = { send: (record: SinkRecord) => this.capture(record) }
    this.global = GlobalStores.open(this.plan, stateDir)
    const global = this.global
    for (const s of this.plan.subtopologies) {
      const id = { subtopology: s.id, partition: 0 }
      const task = this.plan.createTask(id, {
        applicationId,
        stateDir: join(stateDir, `${s.id}_0`),
        sender,
        clock: () => this.wallClock,
        partitionsOf: () => 1,
        onDeserializationError: opts.onDeserializationError,
        globalStore: (name) => global.byName(name),
      })
      task.init()
      for (const topic of s.sourceTopics) this.tasks.set(topic, task)
    }
  }

  createInputTopic<K, V>(name: string, keySerde: Serde<K>, valueSerde: Serde<V>): TestInputTopic<K, V> {
    if (!this.tasks.has(name) && this.global?.byTopic(name) === undefined) {
      throw new StreamsError('TOPOLOGY', `topic '${name}' is not read by the topology`)
    }
    return new TestInputTopic(this, name, keySerde, valueSerde)
  }

  createOutputTopic<K, V>(name: string, keySerde: Serde<K>, valueSerde: Serde<V>): TestOutputTopic<K, V> {
    return new TestOutputTopic(this, name, keySerde, valueSerde)
  }

  /** @internal For TestInputTopic. */
  pipe(
    topic: string,
    key: Buffer | null,
    value: Buffer | null,
    timestampMs: number | undefined,
    headers: readonly StreamHeader[],
  ) {
    this.checkOpen()
    this.deliver({ topic, key, value, timestamp: timestampMs ?? this.wallClock, headers })
    this.settle()
  }

  /** @internal For TestOutputTopic: the unread records of a topic. */
  queue(topic: string): SinkRecord[] {
    let q = this.outputs.get(topic)
    if (q === undefined) {
      q = []
      this.outputs.set(topic, q)
    }
    return q
  }

  /** Moves the virtual wall clock and runs the wall-clock punctuations now due. */
  advanceWallClockTime(ms: number): void {
    this.checkOpen()
    if (!Number.isFinite(ms) || ms < 0) throw new StreamsError('CONFIG', `advanceWallClockTime(${ms}): ms must be >= 0`)
    this.wallClock += ms
    for (const task of this.uniqueTasks()) task.punctuateWallClock(this.wallClock)
    this.settle()
  }

  get wallClockMs(): number {
    return this.wallClock
  }

  /** A task's store or a global table's store, by its user-given name. */
  getKeyValueStore<K, V>(name: string): KeyValueStore<K, V> {
    const store = this.getStateStore(name)
    if (typeof (store as Partial<KeyValueStore<K, V>>).get !== 'function' || 'fetchRange' in store) {
      throw new StreamsError('STATE', `store '${name}' is not a key-value store`)
    }
    return store as KeyValueStore<K, V>
  }

  getStateStore(name: string): StateStore {
    for (const task of this.uniqueTasks()) {
      const store = task.stores.get(name)
      if (store !== undefined) return store
    }
    const global = this.global?.byName(name)
    if (global !== undefined) return global
    throw new StreamsError('STATE', `no store named '${name}' in the topology`)
  }

  /** Every changelog record a store's task wrote, oldest first (not consumed by reading). */
  changelogRecords(storeName: string): readonly ChangelogRecord[] {
    return this.changelogs.get(storeName) ?? []
  }

  /** The topics written so far that an output topic may read (with unread records or not). */
  producedTopicNames(): string[] {
    return [...this.outputs.keys()]
  }

  /** The metrics of the task reading `topic`. */
  metricsOf(topic: string): StreamTask['metrics'] {
    const task = this.tasks.get(topic)
    if (task === undefined) throw new StreamsError('TOPOLOGY', `topic '${topic}' is not read by a task`)
    return task.metrics
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    try {
      for (const task of this.uniqueTasks()) task.close()
      this.global?.close()
    } finally {
      if (this.ownStateDir !== undefined) rmSync(this.ownStateDir, { recursive: true, force: true })
    }
  }

  private capture(record: SinkRecord): void {
    this.queue(record.topic).push(record)
    const store = this.changelogStores.get(record.topic)
    if (store !== undefined) {
      const list = this.changelogs.get(store) ?? []
      list.push({ key: record.key as Buffer, value: record.value, timestamp: record.timestamp })
      this.changelogs.set(store, list)
      return
    }
    if (this.tasks.has(record.topic) || this.global?.byTopic(record.topic) !== undefined) this.pending.push(record)
  }

  /** Runs the records the topology wrote to its own inputs, and commits, until nothing is left. */
  private settle(): void {
    let fed = 0
    for (;;) {
      while (this.pending.length > 0) {
        if (++fed > MAX_FEEDBACK_RECORDS) {
          throw new StreamsError('TOPOLOGY', 'the topology keeps writing to its own inputs (a cycle?)')
        }
        this.deliver(this.pending.shift() as SinkRecord)
      }
      for (const task of this.uniqueTasks()) task.flush()
      if (this.pending.length === 0) return
    }
  }

  private deliver(record: Omit<SinkRecord, 'partition'>): void {
    const offset = this.offsets.get(record.topic) ?? 0n
    this.offsets.set(record.topic, offset + 1n)
    const global = this.global?.byTopic(record.topic)
    if (global !== undefined) {
      if (record.key !== null)
        global.restoreBatch([{ key: record.key, value: record.value, timestamp: record.timestamp }])
      return
    }
    const task = this.tasks.get(record.topic)
    if (task === undefined) throw new StreamsError('TOPOLOGY', `topic '${record.topic}' is not read by the topology`)
    const source: SourceRecord = { ...record, partition: 0, offset }
    task.process(source)
  }

  private uniqueTasks(): StreamTask[] {
    return [...new Set(this.tasks.values())]
  }

  private checkOpen(): void {
    if (this.closed) throw new StreamsError('STATE', 'the test driver is closed')
  }
}
