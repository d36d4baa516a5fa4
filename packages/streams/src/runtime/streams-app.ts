/**
 * StreamsApp: runs a topology plan over a Sluice cluster through the SDK. One instance is one
 * member of the application's consumer group (group id = applicationId); the group spreads
 * the input partitions, and so the tasks, over the running instances.
 *
 * start(): internal topics checked and created (internal-topics.ts), then one producer for
 * every task (acks 'all', idempotent) and one group consumer subscribed to every source topic.
 * On an assignment the new tasks are built, restored from their changelogs and only then fed
 * records; on a revocation their work is committed (commit.ts) and they are suspended until the
 * next assignment resumes or closes them (see revoke()). Everything that touches tasks runs on
 * one serial lane, so processing, commits, punctuations and rebalances never interleave.
 * close() commits and leaves the group.
 */
import {
  connect,
  isSluiceError,
  type ConsumerBatch,
  type GroupConsumer,
  type Logger,
  type Producer,
  type RunHandle,
  type SluiceClient,
  type TopicPartition,
} from '@sluice/client'
import type { Serde } from '../api/serde.js'
import { isStreamsError, StreamsError } from '../errors.js'
import type { ReadOnlyKeyValueStore } from '../state/store-types.js'
import { createActiveTask, type ActiveTask } from './active-task.js'
import { restoreBoundOf } from './changelog-bounds.js'
import { restoreTasks } from './changelog-restorer.js'
import { removeCheckpoint } from '../state/checkpoint.js'
import { commitTasks } from './commit.js'
import { prepareInternalTopics } from './internal-topics.js'
import { processBatch, type BatchContext } from './process-batch.js'
import { ProducerRecordSender } from './record-sender.js'
import { RepartitionPurger } from './repartition-purge.js'
import { RestoreProgress, type RestoreMetrics } from './restore-progress.js'
import { SerialWork } from './serial-work.js'
import { resolveStreamsConfig, type ResolvedStreamsConfig, type StreamsConfig } from './streams-config.js'
import { StreamsPartitionAssignor } from './assignment/streams-partition-assignor.js'
import { InteractiveQueries, type KeyQueryMetadata } from './interactive-queries.js'
import { instanceIdOf, localTaskState } from './local-task-state.js'
import { groupIntoTasks, sourceTopicOwners } from './task-assignment.js'
import type { TaskMetrics, TopologyPlan } from './task-contract.js'
import { TaskRegistry } from './task-registry.js'

/** What resolves to a plan for one application id: the DSL's Topology (`builder.build()`). */
export interface PlanSource {
  plan(applicationId: string): TopologyPlan
}

export type StreamsAppState = 'created' | 'starting' | 'running' | 'closing' | 'closed' | 'failed'

export interface TaskMetricsSnapshot extends TaskMetrics {
  readonly taskId: string
  readonly streamTimeMs: number
  readonly restored: boolean
  /** Records of its input partitions not processed yet, as of the last fetch (0 before one). */
  readonly lag: number
}

export interface StreamsAppMetrics {
  readonly state: StreamsAppState
  readonly tasks: TaskMetricsSnapshot[]
  /** Sums over the tasks running now and those closed before. */
  readonly processed: number
  readonly skipped: number
  readonly droppedLate: number
  readonly outOfOrder: number
  readonly commits: number
  /** Group commits refused (rebalance, fenced); their records are processed again. */
  readonly failedCommits: number
  readonly restore: RestoreMetrics
}

/** Without the task telling its next wall-clock deadline, idle tasks are punctuated this often. */
const WALL_CLOCK_FALLBACK_MS = 100
/** Records handed to the producer and not acknowledged before processing waits for acks. */
const MAX_UNACKED_RECORDS = 100_000

export class StreamsApp {
  private readonly config: ResolvedStreamsConfig
  private readonly plan: TopologyPlan
  private readonly log: Logger
  private stateNow: StreamsAppState = 'created'
  private client: SluiceClient | undefined
  private producer: Producer | undefined
  private sender: ProducerRecordSender | undefined
  private consumer: GroupConsumer | undefined
  private run: RunHandle | undefined
  private purger: RepartitionPurger | undefined
  private readonly tasks = new TaskRegistry()
  /** Tasks committed at a revocation, kept open for the next generation's assignment (see revoke()). */
  private readonly suspended = new Map<string, { task: ActiveTask; generation: number }>()
  private readonly lane = new SerialWork()
  private readonly progress: RestoreProgress
  private partitionCounts = new Map<string, number>()
  private owners = new Map<string, number>()
  private timer: NodeJS.Timeout | undefined
  private nextCommitAt = Number.POSITIVE_INFINITY
  private nextPunctuationAt = Number.POSITIVE_INFINITY
  private commits = 0
  private failedCommits = 0
  private readonly closedTotals: TaskMetrics = { processed: 0, skipped: 0, droppedLate: 0, outOfOrder: 0 }
  private failure: StreamsError | undefined
  private closing: Promise<void> | undefined
  private resolveStopped: (e: StreamsError | undefined) => void = () => {}
  private readonly stoppedPromise = new Promise<StreamsError | undefined>((resolve) => {
    this.resolveStopped = resolve
  })
  private readonly batchContext: BatchContext
  private readonly queries: InteractiveQueries

  constructor(topology: TopologyPlan | PlanSource, config: StreamsConfig) {
    this.config = resolveStreamsConfig(config)
    this.plan = 'createTask' in topology ? topology : topology.plan(this.config.applicationId)
    if (this.plan.applicationId !== this.config.applicationId) {
      throw new StreamsError(
        'CONFIG',
        `the plan is for application ${this.plan.applicationId}, the config says ${this.config.applicationId}`,
        { details: { plan: this.plan.applicationId, config: this.config.applicationId } },
      )
    }
    if (this.plan.globalStores.length > 0) {
      throw new StreamsError('CONFIG', 'global tables are not supported by the runtime yet', {
        details: { topics: this.plan.globalStores.map((g) => g.topic) },
      })
    }
    this.log = this.config.logger.child({ component: 'streams', applicationId: this.config.applicationId })
    this.progress = new RestoreProgress(this.log)
    this.queries = new InteractiveQueries({
      plan: this.plan,
      tasks: () => this.tasks.all(),
      partitionCount: (topic) => this.partitionCounts.get(topic),
    })
    this.batchContext = {
      policy: this.config.deserializationErrors,
      logger: this.log,
      punctuationDue: (now) => now >= this.nextPunctuationAt,
      punctuate: (now) => {
        this.punctuate(now)
      },
    }
  }

  get state(): StreamsAppState {
    return this.stateNow
  }

  /** A read-only view of key-value store `name` over this instance's tasks (interactive-queries.ts). */
  store<K, V>(name: string): ReadOnlyKeyValueStore<K, V> {
    return this.queries.keyValueStore<K, V>(name)
  }

  /** Which instance (its applicationServer) hosts `key` of store `name`. */
  metadataForKey<K>(name: string, key: K, keySerde: Serde<K>): KeyQueryMetadata {
    return this.queries.metadataForKey(name, key, keySerde)
  }

  get applicationId(): string {
    return this.config.applicationId
  }

  /** The directory this instance keeps its task state in (`<stateDir>/<taskId>`). */
  get stateDir(): string {
    return this.config.stateDir
  }

  /**
   * Prepares the internal topics and joins the group. Rejects (and leaves nothing running) with
   * StreamsError 'TOPOLOGY' for a missing source topic, topics that are not co-partitioned or an
   * internal topic with the wrong partition count (then nothing was created).
   */
  async start(): Promise<void> {
    if (this.stateNow !== 'created') {
      throw new StreamsError('RUNTIME', `start() on a StreamsApp that is ${this.stateNow}`, {
        details: { state: this.stateNow },
      })
    }
    this.stateNow = 'starting'
    try {
      this.client =
        this.config.client ?? (await connect({ bootstrap: this.config.bootstrap!, logger: this.config.logger }))
      const prepared = await prepareInternalTopics(this.client.admin(), this.plan, {
        replicationFactor: this.config.replicationFactor,
        logger: this.log,
      })
      this.partitionCounts = prepared.counts
      this.owners = sourceTopicOwners(this.plan)
      const changelogs = new Set(this.plan.internalTopics.filter((t) => t.kind === 'changelog').map((t) => t.name))
      this.purger = new RepartitionPurger(
        this.client.admin(),
        new Set(this.plan.internalTopics.filter((t) => t.kind === 'repartition').map((t) => t.name)),
        this.config.repartitionPurgeIntervalMs,
        this.log,
      )
      const instanceId = instanceIdOf(this.config.stateDir)
      this.producer = this.client.producer({ acks: 'all', idempotent: true })
      this.sender = new ProducerRecordSender(this.producer, (topic) => changelogs.has(topic))
      this.consumer = this.client.consumer({
        groupId: this.config.applicationId,
        autoCommit: false,
        autoOffsetReset: 'earliest',
        // Whole tasks, sticky to where their state is (docs/streams.md, "Task assignment").
        assignors: [
          new StreamsPartitionAssignor({
            subtopologies: this.plan.subtopologies.map((s) => ({ id: s.id, sourceTopics: s.sourceTopics })),
            numStandbyReplicas: this.config.numStandbyReplicas,
            localState: () =>
              localTaskState(instanceId, this.config.stateDir, this.liveTasks(), this.config.applicationServer),
            onTasks: (a) => this.queries.onAssignment(a.partitionsByEndpoint),
            logger: this.log,
          }),
        ],
        ...(this.config.sessionTimeoutMs !== undefined ? { sessionTimeoutMs: this.config.sessionTimeoutMs } : {}),
        ...(this.config.heartbeatIntervalMs !== undefined
          ? { heartbeatIntervalMs: this.config.heartbeatIntervalMs }
          : {}),
        rebalanceListener: {
          onPartitionsAssigned: () => this.onRebalance(() => this.assign()),
          onPartitionsRevoked: (tps) => this.onRebalance(() => this.revoke(tps, true)),
          onPartitionsLost: (tps) => this.onRebalance(() => this.revoke(tps, false)),
        },
      })
      this.consumer.subscribe({ topics: [...this.owners.keys()] })
      this.nextCommitAt = Date.now() + this.config.commitIntervalMs
      this.run = this.consumer.run({ eachBatch: ({ batch }) => this.lane.run(() => this.onBatch(batch)) })
      this.run.done.catch((err: unknown) => {
        this.fail(err)
      })
      this.stateNow = 'running'
      this.armTimer()
      this.log.info(
        {
          sourceTopics: [...this.owners.keys()],
          stateDir: this.config.stateDir,
          internalTopicsCreated: prepared.created,
        },
        'streams app started',
      )
    } catch (err) {
      this.stateNow = 'failed'
      await this.releaseResources()
      const e = asStreamsError(err, 'starting the streams app failed')
      this.failure = e
      this.resolveStopped(e)
      throw e
    }
  }

  /** Commits the tasks' work, closes them and leaves the group; resolves once everything is closed. */
  async close(): Promise<void> {
    this.closing ??= this.doClose()
    await this.closing
  }

  /** Resolves when the app stops: undefined after close(), the StreamsError that stopped it otherwise. Never rejects. */
  stopped(): Promise<StreamsError | undefined> {
    return this.stoppedPromise
  }

  metrics(): StreamsAppMetrics {
    const tasks = this.tasks.all().map((t) => ({
      taskId: t.key,
      ...t.task.metrics,
      streamTimeMs: t.task.streamTimeMs,
      restored: t.restored,
      lag: t.lag(),
    }))
    // The counters every task has (the joins part's optional droppedInvalid is not summed here).
    const sum = (f: 'processed' | 'skipped' | 'droppedLate' | 'outOfOrder'): number =>
      tasks.reduce((n, t) => n + t[f], this.closedTotals[f])
    return {
      state: this.stateNow,
      tasks,
      processed: sum('processed'),
      skipped: sum('skipped'),
      droppedLate: sum('droppedLate'),
      outOfOrder: sum('outOfOrder'),
      commits: this.commits,
      failedCommits: this.failedCommits,
      restore: this.progress.snapshot(),
    }
  }

  // ---- the lane's work ----

  private async onBatch(batch: ConsumerBatch): Promise<void> {
    if (this.stateNow !== 'running' || batch.messages.length === 0) return
    const t = this.tasks.forPartition(batch.topic, batch.partition)
    // Not ours (any more): the consumer stops delivering revoked partitions, so this is a race at most.
    if (t === undefined || !t.restored) return
    const sender = this.sender!
    try {
      processBatch(t, batch, this.batchContext)
    } finally {
      sender.dispatch()
    }
    sender.throwIfFailed()
    if (sender.inFlightRecords > MAX_UNACKED_RECORDS) await sender.settle()
    if (Date.now() >= this.nextCommitAt) await this.commit(this.tasks.all())
  }

  private punctuate(now: number): void {
    let next = Number.POSITIVE_INFINITY
    for (const t of this.tasks.all()) {
      if (!t.restored) continue
      t.task.punctuateWallClock(now)
      next = Math.min(next, t.task.nextWallClockPunctuationMs?.() ?? now + WALL_CLOCK_FALLBACK_MS)
    }
    this.nextPunctuationAt = next
  }

  /**
   * Commits and counts; false when the group refused the commit (logged: the records are read
   * again), anything else stops the app.
   */
  private async commit(tasks: ActiveTask[]): Promise<boolean> {
    this.nextCommitAt = Date.now() + this.config.commitIntervalMs
    try {
      const r = await commitTasks(tasks, { sender: this.sender!, consumer: this.consumer! })
      if (r.offsets.length > 0) {
        this.commits++
        this.purger?.committed(r.offsets)
      }
      return true
    } catch (err) {
      if (isSluiceError(err)) {
        this.failedCommits++
        this.log.warn(
          { err, tasks: tasks.map((t) => t.key) },
          'the group refused a commit; its records will be read again',
        )
        return false
      }
      throw err
    }
  }

  /** Builds (or resumes) the tasks of the current assignment that do not run yet and restores the new ones. */
  private async assign(): Promise<void> {
    if (this.stateNow !== 'running') return
    const wanted = groupIntoTasks(this.consumer!.assignment(), this.owners)
    const generation = this.consumer!.groupMetadata().generationId
    const created: ActiveTask[] = []
    const resumed: string[] = []
    await this.refreshSinkCounts()
    for (const [key, a] of wanted) {
      if (this.tasks.get(key) !== undefined) continue
      const s = this.suspended.get(key)
      if (s !== undefined && s.generation + 1 === generation && samePartitions(s.task.partitions, a.partitions)) {
        this.suspended.delete(key)
        this.tasks.add(s.task)
        resumed.push(key)
        continue
      }
      this.warnIfPartial(key, a.partitions)
      const t = await createActiveTask(a.id, a.partitions, {
        plan: this.plan,
        stateDir: this.config.stateDir,
        sender: this.sender!,
        clock: Date.now,
        onDeserializationError: this.config.deserializationErrors === 'log-and-continue' ? 'skip' : 'fail',
        partitionsOf: (topic) => this.partitionCounts.get(topic),
      })
      this.tasks.add(t)
      created.push(t)
    }
    // Suspended tasks not given back are someone else's now (or stale): close them first, so a
    // persistent store's files are released before a new task of the same id could open them.
    this.closeSuspended()
    if (resumed.length > 0) this.log.info({ tasks: resumed }, 'tasks resumed')
    if (created.length === 0) return
    this.log.info({ tasks: created.map((t) => t.key) }, 'tasks created')
    // What the group's last commit vouches for (changelog-bounds.ts): the restore stops there.
    const committed = await this.consumer!.committed(created.flatMap((t) => t.partitions))
    const sender = this.sender!
    const committedOf = (t: ActiveTask) =>
      committed.filter((c) => t.partitions.some((p) => p.topic === c.topic && p.partition === c.partition))
    await restoreTasks(created, {
      client: this.client!,
      admin: this.client!.admin(),
      logger: this.log,
      progress: this.progress,
      boundOf: (t) => restoreBoundOf(committedOf(t)),
      compensate: async (changelog, records) => {
        for (const r of records)
          sender.send({ ...changelog, key: r.key, value: r.value, timestamp: r.timestamp, headers: [] })
        await sender.flush()
      },
    })
    for (const t of created) t.resumeFromCommits(committedOf(t))
    this.nextPunctuationAt = Date.now()
    this.armTimer()
  }

  /**
   * Commits and suspends the tasks of revoked partitions, or closes them (lost, or the commit was
   * refused). A suspended task keeps its stores open: when the assignment of the very next
   * generation gives it back (the eager protocol revokes everything first, and most tasks
   * return), it goes on without a restore; nobody else can have run it in between, since that
   * generation's assignment is the first after ours. Every other suspended task is closed then.
   */
  private async revoke(tps: TopicPartition[], commit: boolean): Promise<void> {
    const gone = this.tasks.owning(tps)
    if (!commit) this.closeSuspended()
    if (gone.length === 0) return
    const committed = commit && this.stateNow === 'running' && (await this.commit(gone))
    const generation = this.consumer!.groupMetadata().generationId
    for (const t of gone) {
      if (committed) {
        this.tasks.remove(t)
        this.suspended.set(t.key, { task: t, generation })
      } else {
        this.closeTask(t, false)
      }
    }
    this.log.info({ tasks: gone.map((t) => t.key) }, committed ? 'tasks committed and suspended' : 'tasks closed')
  }

  /** The tasks this instance runs or keeps suspended: what it reports as active at a join. */
  private liveTasks(): ActiveTask[] {
    return [...this.tasks.all(), ...[...this.suspended.values()].map((s) => s.task)]
  }

  private closeSuspended(): void {
    const all = [...this.suspended.values()]
    this.suspended.clear()
    for (const { task } of all) this.closeTask(task, true)
  }

  /**
   * Closes a task. `clean`: its last commit covered everything it did. Otherwise its checkpoint
   * is removed, since the store files may hold writes whose input offsets were never committed:
   * the next owner on this directory restores from the changelog's start.
   */
  private closeTask(t: ActiveTask, clean: boolean): void {
    this.tasks.remove(t)
    for (const f of ['processed', 'skipped', 'droppedLate', 'outOfOrder'] as const)
      this.closedTotals[f] += t.task.metrics[f]
    try {
      t.task.close()
    } catch (err) {
      this.log.warn({ err, task: t.key }, 'closing a task failed')
    }
    if (!clean) {
      try {
        removeCheckpoint(t.dir)
      } catch (err) {
        this.log.warn({ err, task: t.key }, 'removing the checkpoint of a task closed without a commit failed')
      }
    }
  }

  // ---- helpers ----

  /** Rebalance work joins the lane; a failure in it stops the app (the SDK would only log it). */
  private async onRebalance(fn: () => Promise<void>): Promise<void> {
    await this.lane.run(fn).catch((err: unknown) => {
      this.fail(err)
    })
  }

  private warnIfPartial(key: string, partitions: readonly TopicPartition[]): void {
    const sub = this.plan.subtopologies.find((s) => s.id === Number(key.split('_')[0]))
    const p = partitions[0]!.partition
    const expected = (sub?.sourceTopics ?? []).filter((topic) => p < (this.partitionCounts.get(topic) ?? 0))
    if (expected.length !== partitions.length) {
      this.log.warn(
        { task: key, assigned: partitions.map((tp) => tp.topic), expected },
        'a task got only some of its source partitions (the assignor split it)',
      )
    }
  }

  /** Output topics created after start(): their counts are looked up before new tasks need them. */
  private async refreshSinkCounts(): Promise<void> {
    const missing = [...new Set(this.plan.subtopologies.flatMap((s) => s.sinkTopics))].filter(
      (t) => !this.partitionCounts.has(t),
    )
    if (missing.length === 0) return
    const admin = this.client!.admin()
    const existing = new Set(await admin.listTopics().catch(() => []))
    const present = missing.filter((t) => existing.has(t))
    if (present.length === 0) return
    for (const d of await admin.describeTopics(present).catch(() => []))
      this.partitionCounts.set(d.name, d.partitions.length)
  }

  /** One timer, armed for the next deadline (commit or wall-clock punctuation): nothing polls on the hot path. */
  private armTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    if (this.stateNow !== 'running') return
    const at = Math.min(this.nextCommitAt, this.nextPunctuationAt)
    if (!Number.isFinite(at)) return
    this.timer = setTimeout(
      () => {
        this.timer = undefined
        this.lane
          .run(async () => {
            if (this.stateNow !== 'running') return
            const now = Date.now()
            if (now >= this.nextPunctuationAt) {
              this.punctuate(now)
              this.sender!.dispatch()
            }
            if (now >= this.nextCommitAt) await this.commit(this.tasks.all())
          })
          .then(
            () => {
              this.armTimer()
            },
            (err: unknown) => {
              this.fail(err)
            },
          )
      },
      Math.max(0, at - Date.now()),
    )
    this.timer.unref()
  }

  /** Stops the app on an error: nothing more is processed or committed; tasks close without a commit. */
  private fail(err: unknown): void {
    if (this.stateNow === 'failed' || this.stateNow === 'closed') return
    const e = asStreamsError(err, 'the streams app stopped')
    this.failure = e
    const wasClosing = this.stateNow === 'closing'
    this.stateNow = 'failed'
    this.log.error({ err: e }, 'streams app failed; nothing further is committed')
    if (wasClosing) return
    this.closing ??= (async () => {
      await this.lane.run(() => {
        for (const t of this.tasks.all()) this.closeTask(t, false)
        this.closeSuspended()
      })
      await this.releaseResources()
      this.resolveStopped(e)
    })()
  }

  private async doClose(): Promise<void> {
    if (this.stateNow === 'created') {
      this.stateNow = 'closed'
      this.resolveStopped(undefined)
      return
    }
    this.stateNow = 'closing'
    if (this.timer !== undefined) clearTimeout(this.timer)
    let error: unknown
    // Stop delivery first (after the batch in hand), so the final commit covers everything processed.
    await this.run?.stop().catch(() => {})
    await this.lane
      .run(async () => {
        if (this.failure !== undefined) return
        await this.commit(this.tasks.all())
      })
      .catch((err: unknown) => {
        error = err
      })
    await this.lane.run(() => {
      for (const t of this.tasks.all()) this.closeTask(t, error === undefined && this.failure === undefined)
      this.closeSuspended()
    })
    await this.releaseResources()
    const failure = this.failure ?? (error === undefined ? undefined : asStreamsError(error, 'the final commit failed'))
    this.stateNow = failure === undefined ? 'closed' : 'failed'
    this.resolveStopped(failure)
    this.log.info({ failed: failure !== undefined }, 'streams app closed')
    if (error !== undefined) throw failure
  }

  private async releaseResources(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    await this.purger?.idle()
    await this.consumer?.close().catch((err: unknown) => {
      this.log.warn({ err }, 'closing the group consumer failed')
    })
    await this.producer?.close().catch(() => {})
    if (this.config.client === undefined) await this.client?.close().catch(() => {})
  }
}

function samePartitions(a: readonly TopicPartition[], b: readonly TopicPartition[]): boolean {
  const key = (tps: readonly TopicPartition[]): string =>
    tps
      .map((tp) => `${tp.topic}\u0000${tp.partition}`)
      .sort()
      .join('\u0001')
  return key(a) === key(b)
}

function asStreamsError(err: unknown, what: string): StreamsError {
  if (isStreamsError(err)) return err
  const reason = err instanceof Error ? err.message : String(err)
  return new StreamsError('RUNTIME', `${what}: ${reason}`, { cause: err })
}
