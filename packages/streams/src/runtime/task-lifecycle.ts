/**
 * The life of the active tasks of one StreamsApp instance: built (or resumed) on an assignment
 * and restored before they process anything, committed and suspended on a revocation, closed
 * when the next assignment does not give them back or the app stops. Every method runs on the
 * app's serial lane (serial-work.ts); the app owns the clients, the commit counters and the
 * timers and hands them in through TaskLifecycleDeps.
 */
import type { GroupConsumer, Logger, SluiceClient, TopicPartition } from '@sluice/client'
import { removeCheckpoint } from '../state/checkpoint.js'
import type { StateStore } from '../state/store-types.js'
import { taskIdString, type TaskId } from '../api/task-id.js'
import { createActiveTask, type ActiveTask, type TaskFactoryDeps } from './active-task.js'
import { restoreBoundOf } from './changelog-bounds.js'
import { restoreTasks } from './changelog-restorer.js'
import type { ProducerRecordSender } from './record-sender.js'
import type { RestoreProgress } from './restore-progress.js'
import type { DeserializationErrorPolicy } from './streams-config.js'
import type { StreamsSubscriptionInfo } from './assignment/streams-user-data.js'
import { localTaskState, OnDiskLags } from './local-task-state.js'
import { StandbyTasks, type StandbyMetricsSnapshot } from './standby-tasks.js'
import { groupIntoTasks, type AssignedTask } from './task-assignment.js'
import type { TaskMetrics, TopologyPlan } from './task-contract.js'
import { TaskRegistry } from './task-registry.js'

export interface TaskLifecycleDeps {
  readonly plan: TopologyPlan
  readonly stateDir: string
  readonly deserializationErrors: DeserializationErrorPolicy
  readonly log: Logger
  readonly progress: RestoreProgress
  /** The app's resources, there once start() got them (the lifecycle runs only after). */
  client(): SluiceClient
  consumer(): GroupConsumer
  sender(): ProducerRecordSender
  /** Partition counts of the topics the plan uses; the lifecycle adds output topics created later. */
  partitionCounts(): Map<string, number>
  /** Source topic -> the sub-topology reading it. */
  owners(): ReadonlyMap<string, number>
  running(): boolean
  /** The app's commit (counted, purging): false when the group refused it. */
  commit(tasks: ActiveTask[]): Promise<boolean>
  /** New tasks were restored: punctuate them at once and re-arm the timer. */
  onRestored(): void
  /** How often standbys checkpoint what they applied (the commit interval). */
  readonly checkpointIntervalMs: number
  /** A global table's store, for the tasks that join with one (global-state.ts). */
  globalStore?(name: string): StateStore | undefined
}

export class TaskLifecycle {
  readonly tasks = new TaskRegistry()
  /** Tasks committed at a revocation, kept open for the next generation's assignment (see revoke()). */
  private readonly suspended = new Map<string, { task: ActiveTask; generation: number }>()
  /** Metrics of the tasks closed before, so the app's sums do not drop at a rebalance. */
  readonly closedTotals: TaskMetrics = { processed: 0, skipped: 0, droppedLate: 0, outOfOrder: 0 }

  /** Other instances' tasks kept up to date here (standby-tasks.ts). */
  private readonly standbys: StandbyTasks
  /** The standby tasks of the latest assignment, applied at the next assign(). */
  private standbysAssigned: readonly TaskId[] = []
  /** Changelog ends of the tasks only on disk here, for the lags this instance reports. */
  private readonly onDisk: OnDiskLags

  constructor(private readonly deps: TaskLifecycleDeps) {
    this.standbys = new StandbyTasks({
      client: () => deps.client(),
      log: deps.log,
      factory: () => this.factory(),
      checkpointIntervalMs: deps.checkpointIntervalMs,
    })
    this.onDisk = new OnDiskLags(deps.plan)
  }

  /** The assignor's word on this member's standbys (before the rebalance listener runs). */
  onStandbyTasks(tasks: readonly TaskId[]): void {
    this.standbysAssigned = tasks
  }

  /** Builds (or resumes) the tasks of the current assignment that do not run yet and restores the new ones. */
  async assign(): Promise<void> {
    const d = this.deps
    if (!d.running()) return
    const consumer = d.consumer()
    const wanted = groupIntoTasks(consumer.assignment(), d.owners())
    const generation = consumer.groupMetadata().generationId
    const created: ActiveTask[] = []
    const resumed: string[] = []
    await this.refreshSinkCounts()
    const promoted: string[] = []
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
      // A standby of it here: its stores are kept, and its restore reads only what it had not applied.
      const standby = this.standbys.promote(key, a.partitions)
      if (standby !== undefined) promoted.push(key)
      const t = standby ?? (await createActiveTask(a.id, a.partitions, this.factory()))
      this.tasks.add(t)
      created.push(t)
    }
    // Standbys of this assignment (never one of its active tasks), of tasks that have state to
    // keep (a stateless task's standby would hold nothing); a suspended task that became one
    // stays open as it is.
    const standbyTasks = this.standbysAssigned
      .filter((id) => this.hasLoggedStores(id.subtopology))
      .map((id) => this.sourcesOf(id))
      .filter((t) => !wanted.has(t.key))
    const adopt: ActiveTask[] = []
    for (const t of standbyTasks) {
      const s = this.suspended.get(t.key)
      if (s === undefined || !samePartitions(s.task.partitions, t.partitions)) continue
      this.suspended.delete(t.key)
      adopt.push(s.task)
    }
    // Suspended tasks not given back are someone else's now (or stale): close them first, so a
    // persistent store's files are released before a new task of the same id could open them.
    this.closeSuspended()
    await this.standbys.sync(standbyTasks, adopt)
    void this.onDisk
      .refresh(d.client().admin(), d.stateDir, new Set([...wanted.keys(), ...this.standbys.keys()]))
      .catch(() => {})
    if (resumed.length > 0) d.log.info({ tasks: resumed }, 'tasks resumed')
    if (promoted.length > 0) d.log.info({ tasks: promoted }, 'standby tasks became active')
    if (created.length === 0) return
    d.log.info({ tasks: created.map((t) => t.key) }, 'tasks created')
    // What the group's last commit vouches for (changelog-bounds.ts): the restore stops there.
    const committed = await consumer.committed(created.flatMap((t) => t.partitions))
    const sender = d.sender()
    const committedOf = (t: ActiveTask) =>
      committed.filter((c) => t.partitions.some((p) => p.topic === c.topic && p.partition === c.partition))
    await restoreTasks(created, {
      client: d.client(),
      admin: d.client().admin(),
      logger: d.log,
      progress: d.progress,
      boundOf: (t) => restoreBoundOf(committedOf(t)),
      compensate: async (changelog, records) => {
        for (const r of records)
          sender.send({ ...changelog, key: r.key, value: r.value, timestamp: r.timestamp, headers: [] })
        await sender.flush()
      },
    })
    for (const t of created) t.resumeFromCommits(committedOf(t))
    d.onRestored()
  }

  /**
   * Commits and suspends the tasks of revoked partitions, or closes them (lost, or the commit was
   * refused). A suspended task keeps its stores open: when the assignment of the very next
   * generation gives it back (the eager protocol revokes everything first, and most tasks
   * return), it goes on without a restore; nobody else can have run it in between, since that
   * generation's assignment is the first after ours. Every other suspended task is closed then.
   */
  async revoke(tps: TopicPartition[], commit: boolean): Promise<void> {
    const gone = this.tasks.owning(tps)
    if (!commit) this.closeSuspended()
    if (gone.length === 0) return
    const committed = commit && this.deps.running() && (await this.deps.commit(gone))
    const generation = this.deps.consumer().groupMetadata().generationId
    for (const t of gone) {
      if (committed) {
        this.tasks.remove(t)
        this.suspended.set(t.key, { task: t, generation })
      } else {
        this.closeTask(t, false)
      }
    }
    this.deps.log.info({ tasks: gone.map((t) => t.key) }, committed ? 'tasks committed and suspended' : 'tasks closed')
  }

  /** The tasks this instance runs or keeps suspended: what it reports as active at a join. */
  liveTasks(): ActiveTask[] {
    return [...this.tasks.all(), ...[...this.suspended.values()].map((s) => s.task)]
  }

  /** What this instance reports at a join (local-task-state.ts): active, standby and on-disk tasks, with lags. */
  localState(instanceId: string, endpoint: string): StreamsSubscriptionInfo {
    return localTaskState(instanceId, this.deps.stateDir, this.liveTasks(), endpoint, {
      standbys: this.standbys.lags(),
      onDiskLag: this.onDisk.lagOf,
    })
  }

  standbyMetrics(): StandbyMetricsSnapshot[] {
    return this.standbys.metrics()
  }

  /**
   * Closes every task, running and suspended (`clean`: the running ones' last commit covered
   * everything), and the standbys, checkpointed.
   */
  async closeAll(clean: boolean): Promise<void> {
    for (const t of this.tasks.all()) this.closeTask(t, clean)
    this.closeSuspended()
    await this.standbys.closeAll()
  }

  private factory(): TaskFactoryDeps {
    const d = this.deps
    return {
      plan: d.plan,
      stateDir: d.stateDir,
      sender: d.sender(),
      clock: Date.now,
      onDeserializationError: d.deserializationErrors === 'log-and-continue' ? 'skip' : 'fail',
      partitionsOf: (topic) => d.partitionCounts().get(topic),
      globalStore: (name) => d.globalStore?.(name),
    }
  }

  private hasLoggedStores(subtopology: number): boolean {
    const sub = this.deps.plan.subtopologies.find((s) => s.id === subtopology)
    return (sub?.stores ?? []).some((spec) => spec.logging)
  }

  /** Task `id` with its source partitions (partition p of every source topic that has one). */
  private sourcesOf(id: TaskId): AssignedTask {
    const sub = this.deps.plan.subtopologies.find((s) => s.id === id.subtopology)
    const counts = this.deps.partitionCounts()
    const topics = [...new Set(sub?.sourceTopics ?? [])].filter((t) => id.partition < (counts.get(t) ?? 0))
    return { id, key: taskIdString(id), partitions: topics.map((topic) => ({ topic, partition: id.partition })) }
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
      this.deps.log.warn({ err, task: t.key }, 'closing a task failed')
    }
    if (!clean) {
      try {
        removeCheckpoint(t.dir)
      } catch (err) {
        this.deps.log.warn({ err, task: t.key }, 'removing the checkpoint of a task closed without a commit failed')
      }
    }
  }

  private warnIfPartial(key: string, partitions: readonly TopicPartition[]): void {
    const sub = this.deps.plan.subtopologies.find((s) => s.id === Number(key.split('_')[0]))
    const p = partitions[0]!.partition
    const counts = this.deps.partitionCounts()
    const expected = (sub?.sourceTopics ?? []).filter((topic) => p < (counts.get(topic) ?? 0))
    if (expected.length !== partitions.length) {
      this.deps.log.warn(
        { task: key, assigned: partitions.map((tp) => tp.topic), expected },
        'a task got only some of its source partitions (the assignor split it)',
      )
    }
  }

  /** Output topics created after start(): their counts are looked up before new tasks need them. */
  private async refreshSinkCounts(): Promise<void> {
    const counts = this.deps.partitionCounts()
    const missing = [...new Set(this.deps.plan.subtopologies.flatMap((s) => s.sinkTopics))].filter(
      (t) => !counts.has(t),
    )
    if (missing.length === 0) return
    const admin = this.deps.client().admin()
    const existing = new Set(await admin.listTopics().catch(() => []))
    const present = missing.filter((t) => existing.has(t))
    if (present.length === 0) return
    for (const d of await admin.describeTopics(present).catch(() => [])) counts.set(d.name, d.partitions.length)
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
