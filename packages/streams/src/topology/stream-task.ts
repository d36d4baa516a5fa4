/**
 * The task the runtime (and the test driver) runs: one sub-topology over one input partition.
 * It owns its processors and its stores (one instance of each per task), deserializes source
 * records, runs each through the processors depth first, keeps stream time (the largest record
 * timestamp seen), fires punctuations, counts metrics and sends sink and changelog records
 * through `deps.sender`.
 */
import type { Cancellable, Processor, PunctuationType } from '../api/processor.js'
import type { RecordMetadata } from '../api/record.js'
import type { TaskId } from '../api/task-id.js'
import { StreamsError, isStreamsError } from '../errors.js'
import type { SourceRecord, StreamTask, TaskDeps, TaskMetrics } from '../runtime/task-contract.js'
import { type StateStore, type StateStoreContext, type StoreBuilder, changelogTopic } from '../state/store-types.js'
import type { SinkNodeDef, SourceNodeDef } from './node-defs.js'
import { PunctuationQueue } from './punctuation-queue.js'
import type { Subtopology } from './subtopology-split.js'
import { type AnyRecord, NodeProcessorContext, TaskNode, type TaskState } from './task-node.js'
import { resolveTopic } from './topic-ref.js'

interface SourceEntry {
  readonly def: SourceNodeDef
  readonly node: TaskNode
}

export class TopologyStreamTask implements StreamTask {
  readonly metrics: TaskMetrics = { processed: 0, droppedLate: 0, outOfOrder: 0, skipped: 0 }
  private readonly storeMap = new Map<string, StateStore>()
  private readonly sources = new Map<string, SourceEntry>()
  private readonly processors: { node: TaskNode; processor: Processor<unknown, unknown, unknown, unknown> }[] = []
  private readonly streamTimePunctuations = new PunctuationQueue()
  private readonly wallClockPunctuations = new PunctuationQueue()
  private streamTime = -1
  private current: { metadata: RecordMetadata | undefined; timestamp: number } | undefined
  private state: 'created' | 'running' | 'closed' = 'created'

  constructor(
    readonly id: TaskId,
    private readonly subtopology: Subtopology,
    private readonly storeBuilders: ReadonlyMap<string, StoreBuilder<StateStore>>,
    private readonly deps: TaskDeps,
  ) {}

  get stores(): ReadonlyMap<string, StateStore> {
    return this.storeMap
  }

  get streamTimeMs(): number {
    return this.streamTime
  }

  resumeStreamTime(ms: number): void {
    if (Number.isSafeInteger(ms) && ms > this.streamTime) this.streamTime = ms
  }

  init(): void {
    if (this.state !== 'created') throw new StreamsError('TASK', `task ${this.name()}: init() is called once`)
    try {
      this.open()
    } catch (e) {
      // A task that failed to open leaves nothing open behind it (lmdb handles, processors).
      this.state = 'running'
      try {
        this.close()
      } catch {
        // The first error is the one worth reporting.
      }
      throw this.wrap(e, 'starting')
    }
    this.state = 'running'
  }

  private open(): void {
    const app = this.deps.applicationId
    for (const name of this.subtopology.stores) {
      const builder = this.storeBuilders.get(name) as StoreBuilder<StateStore>
      const store = builder.build()
      this.storeMap.set(name, store)
      store.init(this.storeContext(name, builder.logging))
    }
    const task = this.taskState()
    const nodes = new Map<string, TaskNode>()
    for (const def of this.subtopology.nodes) {
      const node = new TaskNode(def.name)
      nodes.set(def.name, node)
      if (def.type !== 'source') for (const p of def.parents) nodes.get(p)?.children.push(node)
      if (def.type === 'source') {
        for (const topic of def.topics) this.sources.set(resolveTopic(topic, app), { def, node })
      } else if (def.type === 'sink') {
        node.handle = this.sinkHandler(def)
      } else {
        const processor = def.supplier()
        const context = new NodeProcessorContext(node, def.stores, task, def.globalStores)
        node.handle = (record) => processor.process(record)
        this.processors.push({ node, processor })
        processor.init?.(context)
      }
    }
  }

  process(record: SourceRecord): void {
    this.checkRunning('process')
    const source = this.sources.get(record.topic)
    if (source === undefined) {
      throw new StreamsError('TASK', `task ${this.name()}: topic '${record.topic}' is not a source of this task`)
    }
    const { def } = source
    let key: unknown
    let value: unknown
    try {
      key = record.key === null ? null : def.keySerde.deserialize(record.key, record.topic)
      value = record.value === null ? null : def.valueSerde.deserialize(record.value, record.topic)
    } catch (e) {
      if (isStreamsError(e, 'SERDE') && this.deps.onDeserializationError === 'skip') {
        this.metrics.skipped++
        return
      }
      throw e
    }
    const metadata: RecordMetadata = { topic: record.topic, partition: record.partition, offset: record.offset }
    let timestamp = record.timestamp
    if (def.timestampExtractor !== undefined) {
      timestamp = def.timestampExtractor(
        { key, value, timestamp, headers: record.headers, ...metadata },
        this.streamTime,
      )
    }
    // A record without a usable event time cannot be placed in stream time: skipped and counted.
    if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
      this.metrics.skipped++
      return
    }
    if (timestamp > this.streamTime) this.streamTime = timestamp
    this.current = { metadata, timestamp }
    try {
      source.node.forwardToChildren({ key, value, timestamp, headers: record.headers })
    } catch (e) {
      throw this.wrap(e, `processing a record of ${record.topic}-${record.partition} at offset ${record.offset}`)
    } finally {
      this.current = undefined
    }
    this.metrics.processed++
    this.runPunctuations(this.streamTimePunctuations, this.streamTime)
  }

  punctuateWallClock(nowMs: number): void {
    this.checkRunning('punctuateWallClock')
    this.runPunctuations(this.wallClockPunctuations, nowMs)
  }

  flush(): void {
    this.checkRunning('flush')
    // Stores flush in the order the topology first uses them (upstream first), so a flush that
    // forwards into a downstream cached store lands before that store flushes in turn.
    try {
      for (const store of this.storeMap.values()) store.flush()
    } catch (e) {
      throw this.wrap(e, 'flushing its stores')
    }
  }

  close(): void {
    if (this.state === 'closed') return
    const wasRunning = this.state === 'running'
    this.state = 'closed'
    let first: unknown
    if (wasRunning) {
      for (const { processor } of this.processors) {
        try {
          processor.close?.()
        } catch (e) {
          first ??= e
        }
      }
    }
    for (const store of this.storeMap.values()) {
      try {
        if (store.isOpen) store.close()
      } catch (e) {
        first ??= e
      }
    }
    if (first !== undefined) throw this.wrap(first, 'closing')
  }

  private runPunctuations(queue: PunctuationQueue, nowMs: number): void {
    if (queue.size === 0) return
    try {
      queue.fireDue(nowMs)
    } catch (e) {
      throw this.wrap(e, 'running a punctuation')
    }
  }

  private sinkHandler(def: SinkNodeDef): (record: AnyRecord) => void {
    const app = this.deps.applicationId
    const fixed = typeof def.topic === 'function' ? undefined : resolveTopic(def.topic, app)
    return (record) => {
      const topic = fixed ?? (def.topic as (r: AnyRecord) => string)(record)
      if (typeof topic !== 'string' || topic.length === 0) {
        throw new StreamsError('TOPOLOGY', `${def.name}: the topic function returned no topic name`)
      }
      const key = record.key === null ? null : def.keySerde.serialize(record.key, topic)
      const value = record.value === null ? null : def.valueSerde.serialize(record.value, topic)
      let partition: number | undefined
      if (def.partitioner !== undefined) {
        const count = this.deps.partitionsOf(topic)
        if (count === undefined) {
          throw new StreamsError('RUNTIME', `${def.name}: the partition count of '${topic}' is unknown`)
        }
        partition = def.partitioner(record.key, record.value, count)
        if (!Number.isInteger(partition) || partition < 0 || partition >= count) {
          throw new StreamsError('TOPOLOGY', `${def.name}: the partitioner chose partition ${partition} of ${count}`)
        }
      }
      const source = this.current?.metadata
      // `source` lets the runtime stamp repartition records with their input position (runtime/repartition-stamp.ts).
      this.deps.sender.send({
        topic,
        partition,
        key,
        value,
        timestamp: record.timestamp,
        headers: record.headers,
        ...(source !== undefined ? { source } : {}),
      })
    }
  }

  private storeContext(name: string, logging: boolean): StateStoreContext {
    const { applicationId, sender } = this.deps
    const topic = changelogTopic(applicationId, name)
    const partition = this.id.partition
    return {
      applicationId,
      taskId: this.id,
      stateDir: this.deps.stateDir,
      changelog: logging
        ? {
            send: (r) =>
              sender.send({ topic, partition, key: r.key, value: r.value, timestamp: r.timestamp, headers: [] }),
          }
        : undefined,
      streamTimeMs: () => this.streamTime,
      recordTimestampMs: () => this.current?.timestamp ?? -1,
    }
  }

  private taskState(): TaskState {
    return {
      applicationId: this.deps.applicationId,
      taskId: this.id,
      metrics: this.metrics,
      stores: this.storeMap,
      streamTimeMs: () => this.streamTime,
      nowMs: () => this.deps.clock(),
      currentMetadata: () => this.current?.metadata,
      schedule: (intervalMs, type, run) => this.schedule(intervalMs, type, run),
      globalStore: (name) => this.deps.globalStore?.(name),
    }
  }

  private schedule(intervalMs: number, type: PunctuationType, run: (timestampMs: number) => void): Cancellable {
    // A punctuation is not a record: no metadata, and its writes carry the punctuation's time.
    const wrapped = (timestampMs: number): void => {
      const outer = this.current
      this.current = { metadata: undefined, timestamp: timestampMs }
      try {
        run(timestampMs)
      } finally {
        this.current = outer
      }
    }
    if (type === 'wall-clock')
      return this.wallClockPunctuations.add(intervalMs, this.deps.clock() + intervalMs, wrapped)
    const now = this.streamTime
    const first = now < 0 ? 0 : (Math.floor(now / intervalMs) + 1) * intervalMs
    return this.streamTimePunctuations.add(intervalMs, first, wrapped)
  }

  private checkRunning(what: string): void {
    if (this.state !== 'running') {
      throw new StreamsError('TASK', `task ${this.name()}: ${what}() on a task that is ${this.state}`)
    }
  }

  private name(): string {
    return `${this.id.subtopology}_${this.id.partition}`
  }

  /** A user's error keeps its cause and gains where it happened; a StreamsError passes unchanged. */
  private wrap(e: unknown, doing: string): unknown {
    if (isStreamsError(e)) return e
    const message = e instanceof Error ? e.message : String(e)
    return new StreamsError('TASK', `task ${this.name()} failed ${doing}: ${message}`, { cause: e })
  }
}
