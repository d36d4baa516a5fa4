/**
 * StreamsApp: runs a topology plan over a Sluice cluster through the SDK. One instance is one
 * member of the application's consumer group (group id = applicationId); the group spreads
 * the input partitions, and so the tasks, over the running instances.
 *
 * start(): internal topics checked and created (internal-topics.ts), then one producer for
 * every task (acks 'all', idempotent) and one group consumer subscribed to every source topic.
 * On an assignment the new tasks are built, restored from their changelogs and only then fed
 * records; on a revocation their work is committed (commit.ts) and they are suspended until the
 * next assignment resumes or closes them (task-lifecycle.ts). Everything that touches tasks runs on
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
} from '@sluice/client'
import type { Serde } from '../api/serde.js'
import { isStreamsError, StreamsError } from '../errors.js'
import type { ReadOnlyKeyValueStore, ReadOnlySessionStore, ReadOnlyWindowStore } from '../state/store-types.js'
import type { ActiveTask } from './active-task.js'
import { commitTasks } from './commit.js'
import { prepareInternalTopics } from './internal-topics.js'
import { processBatch, type BatchContext } from './process-batch.js'
import { ProducerRecordSender } from './record-sender.js'
import { RepartitionPurger } from './repartition-purge.js'
import { RestoreProgress, type RestoreMetrics } from './restore-progress.js'
import { SerialWork } from './serial-work.js'
import { GlobalState } from './global-state.js'
import { resolveStreamsConfig, type ResolvedStreamsConfig, type StreamsConfig } from './streams-config.js'
import { StreamsPartitionAssignor } from './assignment/streams-partition-assignor.js'
import { InteractiveQueries, type KeyQueryMetadata } from './interactive-queries.js'
import { instanceIdOf } from './local-task-state.js'
import { sourceTopicOwners } from './task-assignment.js'
import type { TaskMetrics, TopologyPlan } from './task-contract.js'
import type { StandbyMetricsSnapshot } from './standby-tasks.js'
import { TaskLifecycle } from './task-lifecycle.js'
import type { TaskRegistry } from './task-registry.js'

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
  /** The standby tasks this instance keeps up to date, with what each applied and lags (standby-tasks.ts). */
  readonly standbys: StandbyMetricsSnapshot[]
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
  private global: GlobalState | undefined
  /** The active tasks: assigned, suspended, closed (task-lifecycle.ts). */
  private readonly lifecycle: TaskLifecycle
  private readonly tasks: TaskRegistry
  private readonly lane = new SerialWork()
  private readonly progress: RestoreProgress
  private partitionCounts = new Map<string, number>()
  private owners = new Map<string, number>()
  private timer: NodeJS.Timeout | undefined
  private nextCommitAt = Number.POSITIVE_INFINITY
  private nextPunctuationAt = Number.POSITIVE_INFINITY
  private commits = 0
  private failedCommits = 0
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
    this.log = this.config.logger.child({ component: 'streams', applicationId: this.config.applicationId })
    this.progress = new RestoreProgress(this.log)
    this.lifecycle = new TaskLifecycle({
      plan: this.plan,
      stateDir: this.config.stateDir,
      deserializationErrors: this.config.deserializationErrors,
      log: this.log,
      progress: this.progress,
      client: () => this.client!,
      consumer: () => this.consumer!,
      sender: () => this.sender!,
      partitionCounts: () => this.partitionCounts,
      owners: () => this.owners,
      running: () => this.stateNow === 'running',
      commit: (tasks) => this.commit(tasks),
      checkpointIntervalMs: this.config.commitIntervalMs,
      globalStore: (name) => this.global?.store(name),
      onRestored: () => {
        this.nextPunctuationAt = Date.now()
        this.armTimer()
      },
    })
    this.tasks = this.lifecycle.tasks
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

  /** A read-only view of key-value store `name` over this instance's tasks (interactive-queries.ts), or a global table's. */
  store<K, V>(name: string): ReadOnlyKeyValueStore<K, V> {
    return this.global?.readOnlyStore<K, V>(name) ?? this.queries.keyValueStore<K, V>(name)
  }

  /** A read-only view of window store `name` over this instance's tasks (interactive-queries.ts). */
  windowStore<K, V>(name: string): ReadOnlyWindowStore<K, V> {
    return this.queries.windowStore<K, V>(name)
  }

  /** A read-only view of session store `name` over this instance's tasks. */
  sessionStore<K, V>(name: string): ReadOnlySessionStore<K, V> {
    return this.queries.sessionStore<K, V>(name)
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
      // Every global table is loaded before the group is joined: no task sees a partial one.
      const global = { logger: this.log, progress: this.progress, onError: (err: unknown) => this.fail(err) }
      this.global = await GlobalState.start(this.client, this.plan, this.config, global)
      this.consumer = this.client.consumer({
        groupId: this.config.applicationId,
        autoCommit: false,
        autoOffsetReset: 'earliest',
        // Whole tasks, sticky to where their state is (docs/streams.md, "Task assignment").
        assignors: [
          new StreamsPartitionAssignor({
            subtopologies: this.plan.subtopologies.map((s) => ({
              id: s.id,
              sourceTopics: s.sourceTopics,
              stateful: s.stores.some((spec) => spec.logging),
            })),
            numStandbyReplicas: this.config.numStandbyReplicas,
            localState: () => this.lifecycle.localState(instanceId, this.config.applicationServer),
            onTasks: (a) => {
              this.queries.onAssignment(a.partitionsByEndpoint)
              this.lifecycle.onStandbyTasks(a.standbyTasks)
            },
            logger: this.log,
          }),
        ],
        ...(this.config.sessionTimeoutMs !== undefined ? { sessionTimeoutMs: this.config.sessionTimeoutMs } : {}),
        ...(this.config.heartbeatIntervalMs !== undefined
          ? { heartbeatIntervalMs: this.config.heartbeatIntervalMs }
          : {}),
        rebalanceListener: {
          onPartitionsAssigned: () => this.onRebalance(() => this.lifecycle.assign()),
          onPartitionsRevoked: (tps) => this.onRebalance(() => this.lifecycle.revoke(tps, true)),
          onPartitionsLost: (tps) => this.onRebalance(() => this.lifecycle.revoke(tps, false)),
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
      tasks.reduce((n, t) => n + t[f], this.lifecycle.closedTotals[f])
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
      standbys: this.lifecycle.standbyMetrics(),
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

  // ---- helpers ----

  /** Rebalance work joins the lane; a failure in it stops the app (the SDK would only log it). */
  private async onRebalance(fn: () => Promise<void>): Promise<void> {
    await this.lane.run(fn).catch((err: unknown) => {
      this.fail(err)
    })
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
      await this.lane.run(() => this.lifecycle.closeAll(false))
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
    await this.lane.run(() => this.lifecycle.closeAll(error === undefined && this.failure === undefined))
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
    await this.global?.close()
    if (this.config.client === undefined) await this.client?.close().catch(() => {})
  }
}

function asStreamsError(err: unknown, what: string): StreamsError {
  if (isStreamsError(err)) return err
  const reason = err instanceof Error ? err.message : String(err)
  return new StreamsError('RUNTIME', `${what}: ${reason}`, { cause: err })
}
