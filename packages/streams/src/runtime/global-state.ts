/**
 * Global tables at run time: every instance holds a whole copy of each globalTable's topic in
 * its own global store (global-state-stores.ts), so a stream joins it on any key without being
 * co-partitioned with it.
 *
 * start() loads the stores before the app joins its group, so no task processes a record
 * against a half-loaded table: one plain consumer (no group: every instance reads every
 * partition) is assigned all partitions of every global topic and reads each from the log start
 * (a persistent store with a checkpoint: from the checkpoint) up to the end offset listed when
 * the load starts. Progress goes to the app's RestoreProgress (logged about every second, and in
 * metrics().restore). The same consumer then keeps running, so a change to the topic reaches the
 * store a fetch later; the stores apply records synchronously between tasks' records, never in
 * the middle of one.
 *
 * There is no changelog: the topic is the store's changelog, so the records are applied as they
 * are (restoreBatch, not through the table's serdes or a processor). Persistent stores are
 * flushed and checkpointed (`<stateDir>/global/.checkpoint`, per topic partition the next
 * offset the files hold) every commitIntervalMs and on close, so a restart reads only the
 * tail.
 */
import type { Consumer, ConsumerBatch, Logger, RunHandle, SluiceClient, TopicPartition } from '@sluice/client'
import { StreamsError } from '../errors.js'
import { readCheckpoint, writeCheckpoint } from '../state/checkpoint.js'
import type { ChangelogRecord, ReadOnlyKeyValueStore, StateStore } from '../state/store-types.js'
import { GlobalStores, type OpenGlobalStore } from './global-state-stores.js'
import { tpKey } from './record-sender.js'
import type { RestoreProgress } from './restore-progress.js'
import type { TopologyPlan } from './task-contract.js'

/** What the app hands over besides its client, plan and config. */
export interface GlobalStateOptions {
  readonly logger: Logger
  readonly progress: RestoreProgress
  /** An update failing after start() (a store that cannot apply a record): the app stops. */
  readonly onError: (err: unknown) => void
  /** How often a partition that stopped short of its end (a gap at the end of a compacted log) is looked at. */
  readonly idleCheckMs?: number
}

interface GlobalStateDeps extends GlobalStateOptions {
  readonly client: SluiceClient
  readonly plan: TopologyPlan
  /**
   * stateDir: the instance's; the global stores live in `<stateDir>/global`. commitIntervalMs: how
   * often persistent global stores are flushed and checkpointed.
   */
  readonly config: GlobalStateConfig
}

type GlobalStateConfig = { readonly stateDir: string; readonly commitIntervalMs: number }

interface GlobalPartition {
  readonly tp: TopicPartition
  readonly global: OpenGlobalStore
  /** The next offset to apply. */
  position: bigint
  /** The end offset listed when the load started: the partition is loaded once `position` reaches it. */
  readonly loadEnd: bigint
  loaded: boolean
}

export class GlobalState {
  private consumer: Consumer | undefined
  private run: RunHandle | undefined
  private timer: NodeJS.Timeout | undefined
  private closing: Promise<void> | undefined
  /** Settles the load once every partition is loaded. */
  private resolveLoaded: () => void = () => {}

  private constructor(
    private readonly stores: GlobalStores,
    private readonly partitions: ReadonlyMap<string, GlobalPartition>,
    private readonly deps: GlobalStateDeps,
  ) {}

  /**
   * Opens the plan's global stores and loads them from their topics; resolves once every
   * partition is read up to its end at the start, and keeps them updated from then on. Rejects
   * with StreamsError 'TOPOLOGY' when a global table's topic does not exist (nothing is left open).
   */
  static async start(
    client: SluiceClient,
    plan: TopologyPlan,
    config: GlobalStateConfig,
    options: GlobalStateOptions,
  ): Promise<GlobalState> {
    const deps: GlobalStateDeps = { ...options, client, plan, config }
    const { logger } = deps
    if (plan.globalStores.length === 0)
      return new GlobalState(GlobalStores.open(plan, deps.config.stateDir), new Map(), deps)
    const admin = client.admin()
    const topics = plan.globalStores.map((g) => g.topic)
    const existing = new Set(await admin.listTopics())
    const missing = topics.filter((t) => !existing.has(t))
    if (missing.length > 0) {
      throw new StreamsError('TOPOLOGY', `the topics of global tables do not exist: ${missing.join(', ')}`, {
        details: { problem: 'MISSING_GLOBAL_TOPIC', topics: missing },
      })
    }
    const items = topics.map((topic) => ({ topic }))
    const [ends, starts] = await Promise.all([admin.listOffsets(items, 'latest'), admin.listOffsets(items, 'earliest')])
    const stores = GlobalStores.open(plan, deps.config.stateDir)
    const checkpoint = readCheckpoint(stores.dir, logger).offsets
    const partitions = new Map<string, GlobalPartition>()
    for (const end of ends) {
      const global = stores.all.find((g) => g.plan.topic === end.topic)!
      const logStart = starts.find((s) => s.topic === end.topic && s.partition === end.partition)?.offset ?? 0n
      let start = (global.store.persistent ? checkpoint.get(checkpointKey(end)) : undefined) ?? logStart
      if (start > end.offset) {
        // The topic is shorter than the checkpoint says (deleted and re-created): read what it has.
        logger.warn(
          { topic: end.topic, partition: end.partition, checkpoint: String(start), end: String(end.offset) },
          'global store checkpoint past the topic end; loading from the log start',
        )
        start = logStart
      }
      if (start < logStart) start = logStart
      const tp = { topic: end.topic, partition: end.partition }
      partitions.set(tpKey(tp.topic, tp.partition), {
        tp,
        global,
        position: start,
        loadEnd: end.offset,
        loaded: start >= end.offset,
      })
    }
    const state = new GlobalState(stores, partitions, deps)
    try {
      await state.load()
    } catch (err) {
      await state.close()
      throw err
    }
    return state
  }

  /** The global store of that name (TaskDeps.globalStore). */
  store(name: string): StateStore | undefined {
    return this.stores.byName(name)
  }

  /**
   * A read-only view of the global key-value store of that name (StreamsApp.store()): the whole
   * table, on every instance. undefined when no global table has that store.
   */
  readOnlyStore<K, V>(name: string): ReadOnlyKeyValueStore<K, V> | undefined {
    const store = this.stores.byName(name) as (StateStore & Partial<ReadOnlyKeyValueStore<K, V>>) | undefined
    if (store?.get === undefined) return undefined
    const kv = store as StateStore & ReadOnlyKeyValueStore<K, V>
    return {
      get: (key) => kv.get(key),
      range: (from, to) => kv.range(from, to),
      all: () => kv.all(),
      approximateNumEntries: () => kv.approximateNumEntries(),
    }
  }

  /** Stops the updates, checkpoints persistent stores and closes them. */
  close(): Promise<void> {
    this.closing ??= this.doClose()
    return this.closing
  }

  private async load(): Promise<void> {
    const { progress, logger } = this.deps
    const parts = [...this.partitions.values()]
    const planned = parts.reduce((n, p) => n + Number(p.loadEnd - p.position), 0)
    logger.info(
      { stores: this.stores.all.map((g) => g.store.name), partitions: parts.length, records: planned },
      'loading global tables from their topics',
    )
    const loaded = new Promise<void>((resolve) => {
      this.resolveLoaded = resolve
    })
    progress.begin(planned, parts.length, ['global'])
    let idle: NodeJS.Timeout | undefined
    try {
      const consumer = this.deps.client.consumer({ offsetReset: 'earliest' })
      this.consumer = consumer
      await consumer.assign(parts.map((p) => p.tp))
      for (const p of parts) consumer.seek({ ...p.tp, offset: p.position })
      const run = consumer.run({ eachBatch: ({ batch }) => this.apply(batch) })
      this.run = run
      // A compacted log can end in a gap (its last offsets removed): the position passes the end
      // without a record at end - 1. Looked at only while loading.
      idle = setInterval(() => {
        for (const p of parts) {
          if (p.loaded) continue
          consumer
            .position(p.tp)
            .then((pos) => {
              if (pos >= p.loadEnd) this.markLoaded(p)
            })
            .catch(() => {})
        }
      }, this.deps.idleCheckMs ?? 250)
      this.checkLoaded()
      await Promise.race([
        loaded,
        run.done.then(() => {
          throw new StreamsError('RUNTIME', 'the global tables consumer stopped while loading')
        }),
      ])
    } finally {
      clearInterval(idle)
      progress.end()
    }
    const run = this.run!
    this.checkpoint()
    logger.info({ stores: this.stores.all.map((g) => g.store.name) }, 'global tables loaded; following their topics')
    run.done.catch((err: unknown) => {
      if (this.closing === undefined) this.deps.onError(err)
    })
    if (this.stores.all.some((g) => g.store.persistent)) {
      this.timer = setInterval(() => {
        try {
          this.checkpoint()
        } catch (err) {
          this.deps.onError(err)
        }
      }, this.deps.config.commitIntervalMs)
      this.timer.unref()
    }
  }

  private markLoaded(p: GlobalPartition): void {
    if (p.loaded) return
    p.loaded = true
    // What a compaction gap left unread is no longer remaining.
    this.deps.progress.finishedPartition(Number(p.loadEnd > p.position ? p.loadEnd - p.position : 0n))
    this.checkLoaded()
  }

  private checkLoaded(): void {
    if ([...this.partitions.values()].every((p) => p.loaded)) this.resolveLoaded()
  }

  private apply(batch: ConsumerBatch): void {
    const p = this.partitions.get(tpKey(batch.topic, batch.partition))
    if (p === undefined) return
    const records: ChangelogRecord[] = []
    let loading = 0
    let next = p.position
    for (const m of batch.messages) {
      if (m.offset < next) continue
      next = m.offset + 1n
      if (m.offset < p.loadEnd) loading++
      // A record without a key has no row to update (Kafka skips it too).
      // Copies: the consumer's buffers are views of a whole fetch response, which an in-memory store would hold on to.
      if (m.key !== null)
        records.push({
          key: Buffer.from(m.key),
          value: m.value === null ? null : Buffer.from(m.value),
          timestamp: Number(m.timestamp),
        })
    }
    if (records.length > 0) {
      try {
        p.global.store.restoreBatch(records)
      } catch (err) {
        throw new StreamsError('STATE', `updating global store ${p.global.store.name} from ${batch.topic} failed`, {
          cause: err,
          details: { store: p.global.store.name, topic: batch.topic, partition: batch.partition },
        })
      }
    }
    p.position = next
    if (!p.loaded) {
      this.deps.progress.add(loading)
      if (p.position >= p.loadEnd) this.markLoaded(p)
    }
  }

  /** Flushes the persistent global stores and records the offsets their files hold. */
  private checkpoint(): void {
    const offsets = new Map<string, bigint>()
    for (const p of this.partitions.values()) {
      if (p.global.store.persistent) offsets.set(checkpointKey(p.tp), p.position)
    }
    if (offsets.size === 0) return
    for (const g of this.stores.all) if (g.store.persistent) g.store.flush()
    writeCheckpoint(this.stores.dir, offsets)
  }

  private async doClose(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer)
    await this.run?.stop().catch(() => {})
    await this.consumer?.close().catch((err: unknown) => {
      this.deps.logger.warn({ err }, 'closing the global tables consumer failed')
    })
    try {
      if (this.stores.all.every((g) => g.store.isOpen)) this.checkpoint()
    } catch (err) {
      this.deps.logger.warn({ err }, 'checkpointing the global stores failed; the next start loads them again')
    }
    try {
      this.stores.close()
    } catch (err) {
      this.deps.logger.warn({ err }, 'closing a global store failed')
    }
  }
}

/** A global store's checkpoint entry: topic names cannot hold ':'. */
function checkpointKey(tp: TopicPartition): string {
  return `${tp.topic}:${tp.partition}`
}
