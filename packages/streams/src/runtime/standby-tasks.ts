/**
 * Standby tasks: copies of other instances' tasks that this instance keeps up to date, so that
 * when one of those tasks fails over here it restores only what its standby had not applied yet
 * (docs/streams.md, "Standby tasks").
 *
 * A standby is the task as the plan builds it (its stores opened in `<stateDir>/<taskId>`, as
 * for an active task), which never processes input and never produces: only its logged stores
 * are fed, through store.restoreBatch(), from their changelog partitions. One plain consumer (no
 * group) is assigned the changelog partitions of every standby of the instance and runs for as
 * long as there are standbys. Each store starts at the task's checkpoint (persistent stores whose
 * files survived) or at the log start, and `task.changelogPositions` holds what it applied, which
 * is where a restore continues when the standby becomes active here (changelog-restorer.ts).
 * Every `checkpointIntervalMs` and at close the persistent stores are flushed and the applied
 * positions written to the task's checkpoint (state/checkpoint.ts), so a restart starts there.
 *
 * Standby stores are not queryable (interactive queries read the active tasks only). Nothing
 * here runs on the app's serial lane: the consumer's callback and the checkpoint timer touch
 * only the standbys' own stores, synchronously, and a standby leaves the map (synchronously)
 * before it is promoted or closed, so a batch arriving later for it is dropped.
 */
import type { Consumer, ConsumerBatch, Logger, RunHandle, SluiceClient } from '@sluice/client'
import { readCheckpoint, writeCheckpoint } from '../state/checkpoint.js'
import type { ChangelogRecord } from '../state/store-types.js'
import { createActiveTask, type ActiveTask, type LoggedStore, type TaskFactoryDeps } from './active-task.js'
import { UNKNOWN_LAG } from './local-task-state.js'
import { tpKey } from './record-sender.js'
import type { AssignedTask } from './task-assignment.js'

export interface StandbyDeps {
  client(): SluiceClient
  readonly log: Logger
  /** What createActiveTask needs; the sender is the app's, never used by a standby. */
  factory(): TaskFactoryDeps
  readonly checkpointIntervalMs: number
}

export interface StandbyChangelogMetrics {
  readonly store: string
  readonly topic: string
  readonly partition: number
  /** The offset after the last changelog record the store applied. */
  readonly appliedOffset: number
  /** The changelog end as last seen (the high watermark of the last fetch, or the end read at open). */
  readonly endOffset: number
  readonly lag: number
}

export interface StandbyMetricsSnapshot {
  readonly taskId: string
  /** Changelog records applied since this instance opened the standby. */
  readonly appliedRecords: number
  /** Changelog records not applied yet, summed over its stores (what a failover here would restore). */
  readonly lag: number
  readonly changelogs: StandbyChangelogMetrics[]
}

interface Standby {
  readonly task: ActiveTask
  /** Per changelog partition (tpKey): the end offset as last seen. */
  readonly ends: Map<string, bigint>
  appliedRecords: number
}

export class StandbyTasks {
  private readonly standbys = new Map<string, Standby>()
  /** Changelog partition (tpKey) -> its standby and store. */
  private readonly byChangelog = new Map<string, { standby: Standby; logged: LoggedStore }>()
  private consumer: Consumer | undefined
  private run: RunHandle | undefined
  private timer: NodeJS.Timeout | undefined
  /** Reassignments of the consumer, one at a time, in order. */
  private reassigning: Promise<void> = Promise.resolve()

  constructor(private readonly deps: StandbyDeps) {}

  has(key: string): boolean {
    return this.standbys.has(key)
  }

  keys(): string[] {
    return [...this.standbys.keys()]
  }

  get size(): number {
    return this.standbys.size
  }

  /** Standbys as the assignor sees them: the task and the changelog records it would have to restore. */
  lags(): Array<{ key: string; id: ActiveTask['id']; lag: number }> {
    // Before its changelog ends are read (just opened) a standby's lag cannot be told yet.
    const known = (s: Standby): boolean => s.task.logged.every((l) => s.ends.has(l.key))
    return [...this.standbys.values()].map((s) => ({
      key: s.task.key,
      id: s.task.id,
      lag: known(s) ? lagOf(s) : UNKNOWN_LAG,
    }))
  }

  metrics(): StandbyMetricsSnapshot[] {
    return [...this.standbys.values()].map((s) => ({
      taskId: s.task.key,
      appliedRecords: s.appliedRecords,
      lag: lagOf(s),
      changelogs: s.task.logged.map((l) => {
        const applied = s.task.changelogPositions.get(l.key) ?? 0n
        const end = s.ends.get(l.key) ?? applied
        return {
          store: l.spec.name,
          topic: l.changelog.topic,
          partition: l.changelog.partition,
          appliedOffset: Number(applied),
          endOffset: Number(end),
          lag: Number(end > applied ? end - applied : 0n),
        }
      }),
    }))
  }

  /**
   * Makes the standbys exactly `wanted`: closes the others (checkpointed), opens the new ones
   * and points the consumer at their changelogs. `adopt` are tasks of this instance that stop
   * being active and stay here as standbys (a suspended task the assignment made a standby):
   * their stores are kept as they are, at the positions they committed.
   */
  async sync(wanted: readonly AssignedTask[], adopt: readonly ActiveTask[] = []): Promise<void> {
    const keep = new Set(wanted.map((t) => t.key))
    for (const key of this.keys()) if (!keep.has(key)) this.close(key)
    const adopted = new Set<string>()
    for (const t of adopt) {
      if (!keep.has(t.key) || this.standbys.has(t.key)) {
        // Not a standby after all (or one is open already): the caller handed it over, so it is closed here.
        try {
          t.task.close()
        } catch (err) {
          this.deps.log.warn({ err, task: t.key }, 'closing a task not kept as a standby failed')
        }
        continue
      }
      t.restored = false
      this.add(t, new Map())
      adopted.add(t.key)
    }
    const opened: ActiveTask[] = []
    for (const a of wanted) {
      if (this.standbys.has(a.key)) continue
      try {
        opened.push(await createActiveTask(a.id, a.partitions, this.deps.factory()))
      } catch (err) {
        this.deps.log.warn({ err, task: a.key }, 'opening a standby task failed; it is left out')
      }
    }
    const starts = new Map<string, bigint | 'beginning'>()
    for (const t of opened) {
      const checkpoint = readCheckpoint(t.dir, this.deps.log).offsets
      for (const l of t.logged) {
        const c = l.spec.persistent ? checkpoint.get(l.spec.name) : undefined
        starts.set(l.key, c ?? 'beginning')
        if (c !== undefined) t.changelogPositions.set(l.key, c)
      }
      this.add(t, new Map())
    }
    for (const key of adopted) {
      const s = this.standbys.get(key)!
      for (const l of s.task.logged) starts.set(l.key, s.task.changelogPositions.get(l.key) ?? 'beginning')
    }
    if (opened.length > 0 || adopted.size > 0)
      this.deps.log.info({ standbys: [...opened.map((t) => t.key), ...adopted] }, 'standby tasks opened')
    await this.reassign(starts)
  }

  /**
   * Hands a standby over to become active here: it leaves the standbys (nothing more is applied
   * to it) with its stores open and its applied positions in changelogPositions, so its restore
   * reads only from there. Undefined when there is no standby of that task with these partitions.
   */
  promote(key: string, partitions: readonly { topic: string; partition: number }[]): ActiveTask | undefined {
    const s = this.standbys.get(key)
    if (s === undefined) return undefined
    const same =
      s.task.partitions.length === partitions.length &&
      partitions.every((p) => s.task.partitions.some((q) => q.topic === p.topic && q.partition === p.partition))
    if (!same) {
      this.close(key)
      return undefined
    }
    this.remove(s)
    this.deps.log.info({ task: key, lag: lagOf(s) }, 'standby task promoted to active')
    return s.task
  }

  /** Closes one standby, checkpointing what it applied. */
  close(key: string): void {
    const s = this.standbys.get(key)
    if (s === undefined) return
    this.remove(s)
    this.checkpoint(s)
    try {
      s.task.task.close()
    } catch (err) {
      this.deps.log.warn({ err, task: key }, 'closing a standby task failed')
    }
  }

  /** Closes every standby (checkpointed) and the changelog consumer. */
  async closeAll(): Promise<void> {
    for (const key of this.keys()) this.close(key)
    await this.reassign(new Map())
  }

  /** Applies one fetched batch of a standby's changelog partition. */
  private apply(batch: ConsumerBatch): void {
    const k = tpKey(batch.topic, batch.partition)
    const entry = this.byChangelog.get(k)
    if (entry === undefined) return
    const { standby, logged } = entry
    const from = standby.task.changelogPositions.get(k) ?? 0n
    const records: ChangelogRecord[] = []
    let next = from
    for (const m of batch.messages) {
      if (m.offset < from) continue
      next = m.offset + 1n
      // Copies: the consumer's buffers are views of a whole fetch response (see changelog-restorer.ts).
      if (m.key !== null)
        records.push({
          key: Buffer.from(m.key),
          value: m.value === null ? null : Buffer.from(m.value),
          timestamp: Number(m.timestamp),
        })
    }
    try {
      if (records.length > 0) logged.store.restoreBatch(records)
    } catch (err) {
      // A standby is a cache of the changelog: one that cannot apply it is dropped, not the app.
      this.deps.log.warn(
        { err, task: standby.task.key, store: logged.spec.name },
        'a standby failed to apply its changelog; closed',
      )
      this.remove(standby)
      standby.task.changelogPositions.clear()
      try {
        standby.task.task.close()
      } catch {}
      return
    }
    standby.appliedRecords += records.length
    standby.task.changelogPositions.set(k, next)
    const end = batch.highWatermark > next ? batch.highWatermark : next
    standby.ends.set(k, end)
  }

  private add(task: ActiveTask, ends: Map<string, bigint>): void {
    const s: Standby = { task, ends, appliedRecords: 0 }
    this.standbys.set(task.key, s)
    for (const l of task.logged) this.byChangelog.set(l.key, { standby: s, logged: l })
  }

  private remove(s: Standby): void {
    if (this.standbys.get(s.task.key) !== s) return
    this.standbys.delete(s.task.key)
    // The consumer keeps the partitions until the next sync() reassigns it; their batches are dropped.
    for (const l of s.task.logged) if (this.byChangelog.get(l.key)?.standby === s) this.byChangelog.delete(l.key)
  }

  /** Flushes the standby's persistent stores and writes their applied positions to its checkpoint. */
  private checkpoint(s: Standby): void {
    const entries = new Map<string, bigint>()
    try {
      for (const l of s.task.logged) {
        if (!l.spec.persistent) continue
        const p = s.task.changelogPositions.get(l.key)
        if (p === undefined) continue
        l.store.flush()
        entries.set(l.spec.name, p)
      }
      if (entries.size > 0) writeCheckpoint(s.task.dir, entries)
    } catch (err) {
      this.deps.log.warn({ err, task: s.task.key }, 'checkpointing a standby task failed')
    }
  }

  /**
   * Points the consumer at the changelogs of the standbys there are now (one reassignment at a
   * time); `starts` seeks the newly added ones. No standbys: the consumer is closed.
   */
  private reassign(starts: ReadonlyMap<string, bigint | 'beginning'>): Promise<void> {
    const next = this.reassigning.then(async () => {
      const tps = [...this.byChangelog.values()].map((e) => e.logged.changelog)
      if (tps.length === 0) {
        await this.stopConsumer()
        return
      }
      const consumer = this.ensureConsumer()
      await consumer.assign(tps.map((tp) => ({ topic: tp.topic, partition: tp.partition })))
      for (const tp of tps) {
        const start = starts.get(tpKey(tp.topic, tp.partition))
        if (start !== undefined) consumer.seek({ ...tp, offset: start })
      }
      await this.readEnds(tps, starts)
    })
    this.reassigning = next.catch((err: unknown) => {
      this.deps.log.warn({ err }, 'assigning the standby changelog consumer failed')
    })
    return this.reassigning
  }

  /** The start (for standbys from the log start) and end of newly added changelogs, for their positions and lag. */
  private async readEnds(
    tps: readonly { topic: string; partition: number }[],
    starts: ReadonlyMap<string, bigint | 'beginning'>,
  ): Promise<void> {
    const added = tps.filter((tp) => starts.has(tpKey(tp.topic, tp.partition)))
    if (added.length === 0) return
    const admin = this.deps.client().admin()
    const [latest, earliest] = await Promise.all([
      admin.listOffsets(added, 'latest'),
      admin.listOffsets(added, 'earliest'),
    ])
    const logStart = new Map(earliest.map((o) => [tpKey(o.topic, o.partition), o.offset]))
    for (const o of latest) {
      const k = tpKey(o.topic, o.partition)
      const e = this.byChangelog.get(k)
      if (e === undefined) continue
      const positions = e.standby.task.changelogPositions
      const start = logStart.get(k) ?? 0n
      const at = positions.get(k)
      // The start asked for, not the position now: records may have been applied meanwhile.
      const asked = starts.get(k)
      if (typeof asked === 'bigint' && asked > o.offset) {
        // A checkpoint past the changelog end (deleted and re-created): read what the log has,
        // as a restore does (changelog-restorer.ts).
        this.deps.log.warn(
          { task: e.standby.task.key, store: e.logged.spec.name, checkpoint: String(asked), end: String(o.offset) },
          'standby checkpoint past the changelog end; reading from the log start',
        )
        positions.set(k, start)
        this.consumer?.seek({ ...e.logged.changelog, offset: start })
      } else if (at === undefined || at < start) {
        positions.set(k, start)
      }
      if ((e.standby.ends.get(k) ?? -1n) < o.offset) e.standby.ends.set(k, o.offset)
    }
  }

  private ensureConsumer(): Consumer {
    if (this.consumer !== undefined) return this.consumer
    const consumer = this.deps.client().consumer({ offsetReset: 'earliest' })
    this.consumer = consumer
    this.run = consumer.run({
      eachBatch: ({ batch }) => {
        this.apply(batch)
      },
    })
    this.run.done.catch((err: unknown) => {
      this.deps.log.warn({ err }, 'the standby changelog consumer stopped')
    })
    this.timer = setInterval(() => {
      for (const s of this.standbys.values()) this.checkpoint(s)
    }, this.deps.checkpointIntervalMs)
    this.timer.unref()
    return consumer
  }

  private async stopConsumer(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer)
    this.timer = undefined
    const consumer = this.consumer
    const run = this.run
    this.consumer = undefined
    this.run = undefined
    await run?.stop().catch(() => {})
    await consumer?.close().catch(() => {})
  }
}

function lagOf(s: Standby): number {
  let lag = 0n
  for (const l of s.task.logged) {
    const applied = s.task.changelogPositions.get(l.key) ?? 0n
    const end = s.ends.get(l.key) ?? applied
    if (end > applied) lag += end - applied
  }
  return Number(lag)
}
