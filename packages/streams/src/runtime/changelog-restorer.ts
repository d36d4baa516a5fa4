/**
 * Restores the logged stores of new tasks before they process anything: each store reads its
 * changelog partition (`<app>-<store>-changelog`, partition = task partition) from the task's
 * checkpoint (persistent stores whose files survived) or from the log start, up to the end
 * offset read when the restore starts, and applies the records with store.restoreBatch(). One
 * plain consumer (no group) is assigned the changelog partitions of all the tasks restored
 * together, and closed afterwards. Nothing else writes to a task's changelog partitions while
 * this instance owns the task, so the end offset read at the start is the end.
 *
 * The restore stops at the changelog end the group's last commit vouches for (`boundOf`,
 * changelog-bounds.ts). Past it lies an uncommitted tail, written before a crash by records
 * that will be processed again: its keys are read first, and after the restore each of them is
 * written back with the value the store holds at the bound (a tombstone where it has none),
 * to the store and, through `compensate`, to the changelog, before the task processes anything.
 * A later restore then reads the tail and its correction in order and ends in the same state.
 * With a tail the restore starts at the log start, not at the checkpoint: a persistent store's
 * files may already hold the tail's writes.
 *
 * A task whose `changelogPositions` are set before the restore is a standby promoted to active
 * on this instance (standby-tasks.ts): its stores hold the changelog up to those positions, so
 * without a tail the restore reads from there, whatever the store kind. With a tail it starts
 * at the log start like any other (the standby may have applied the tail too).
 */
import type { Admin, Logger, SluiceClient, TopicPartition } from '@sluice/client'
import { readCheckpoint } from '../state/checkpoint.js'
import type { ChangelogRecord } from '../state/store-types.js'
import { StreamsError } from '../errors.js'
import type { ActiveTask, LoggedStore } from './active-task.js'
import { tpKey } from './record-sender.js'
import type { RestoreProgress } from './restore-progress.js'
import type { RestoreBound } from './changelog-bounds.js'

interface PartitionRestore {
  readonly task: ActiveTask
  readonly logged: LoggedStore
  readonly start: bigint
  readonly end: bigint
  /** The changelog's end when it is past `end` (an uncommitted tail to correct). */
  readonly tailEnd?: bigint
  done: boolean
}

export interface RestoreDeps {
  readonly client: SluiceClient
  readonly admin: Admin
  readonly logger: Logger
  readonly progress: RestoreProgress
  /** How often a partition that stopped short of its end (a gap at the end of a compacted log) is looked at. */
  readonly idleCheckMs?: number
  /** What the group's last commit vouches for, per task (changelog-bounds.ts); absent: no bound. */
  readonly boundOf?: (task: ActiveTask) => RestoreBound
  /** Writes correction records to a changelog partition and resolves once they are acknowledged. */
  readonly compensate?: (changelog: TopicPartition, records: ChangelogRecord[]) => Promise<void>
}

export async function restoreTasks(tasks: readonly ActiveTask[], deps: RestoreDeps): Promise<void> {
  const todo = tasks.filter((t) => !t.restored)
  const stores = todo.flatMap((t) => t.logged.map((logged) => ({ task: t, logged })))
  if (stores.length === 0) {
    for (const t of todo) t.restored = true
    return
  }
  const tps = stores.map((s) => s.logged.changelog)
  const [ends, starts] = await Promise.all([
    offsetsOf(deps.admin, tps, 'latest'),
    offsetsOf(deps.admin, tps, 'earliest'),
  ])
  const checkpoints = new Map<ActiveTask, Map<string, bigint>>()
  // A missing or corrupt checkpoint (logged by the helper) means: from the log start.
  for (const t of todo) checkpoints.set(t, readCheckpoint(t.dir, deps.logger).offsets)

  const parts: PartitionRestore[] = []
  for (const { task, logged } of stores) {
    const logEnd = ends.get(logged.key) ?? 0n
    const logStart = starts.get(logged.key) ?? 0n
    const bound = deps.compensate === undefined ? undefined : deps.boundOf?.(task)
    let end = logEnd
    if (bound?.kind === 'none') end = logStart
    else if (bound?.kind === 'bounded') end = bound.ends.get(logged.key) ?? logStart
    if (end > logEnd) end = logEnd
    if (end < logStart) end = logStart
    const tail = end < logEnd
    // Where the store already is: a standby promoted here has applied up to its position (any
    // store kind); else a persistent store's checkpoint. Neither with a tail (see above).
    const applied = tail ? undefined : task.changelogPositions.get(logged.key)
    const checkpointed = logged.spec.persistent && !tail ? checkpoints.get(task)!.get(logged.spec.name) : undefined
    let start = applied ?? checkpointed ?? logStart
    if (start > end) {
      // The changelog is shorter than the checkpoint says (deleted and re-created): the files are
      // ahead of the log, so read what the log has; the store is overwritten key by key.
      deps.logger.warn(
        { task: task.key, store: logged.spec.name, checkpoint: String(start), end: String(end) },
        'checkpoint past the changelog end; restoring from the log start',
      )
      start = logStart
    }
    if (start < logStart) start = logStart
    parts.push({ task, logged, start, end, ...(tail ? { tailEnd: logEnd } : {}), done: start >= end })
  }
  const planned = parts.reduce((n, p) => n + Number(p.end - p.start), 0)
  deps.progress.begin(
    planned,
    parts.length,
    todo.map((t) => t.key),
  )
  try {
    const tails = parts.filter((p) => p.tailEnd !== undefined)
    const tailKeys = new Map<PartitionRestore, Map<string, Buffer | null>>()
    if (tails.length > 0) {
      deps.logger.warn(
        { tasks: [...new Set(tails.map((p) => p.task.key))], partitions: tails.length },
        'changelogs hold writes past the last commit (a crash): restoring to the commit and correcting them',
      )
      const reads = tails.map((p) => ({ ...p, start: p.end, end: p.tailEnd!, done: false }))
      await readChangelogs(reads, deps, (r, records) => {
        const keys = tailKeys.get(tails[reads.indexOf(r)]!) ?? new Map<string, Buffer | null>()
        for (const rec of records) keys.set(rec.key.toString('hex'), null)
        tailKeys.set(tails[reads.indexOf(r)]!, keys)
      })
    }
    const open = parts.filter((p) => !p.done)
    if (open.length > 0)
      await readChangelogs(open, deps, (p, records) => {
        p.logged.store.restoreBatch(records)
        deps.progress.add(records.length)
        // The value each tail key has at the bound: the last record of it before the bound.
        const keys = tailKeys.get(p)
        if (keys !== undefined)
          for (const rec of records) if (keys.has(rec.key.toString('hex'))) keys.set(rec.key.toString('hex'), rec.value)
      })
    for (const [p, keys] of tailKeys) {
      const now = Date.now()
      const corrections: ChangelogRecord[] = [...keys].map(([hex, value]) => ({
        key: Buffer.from(hex, 'hex'),
        value,
        timestamp: now,
      }))
      p.logged.store.restoreBatch(corrections)
      await deps.compensate!(p.logged.changelog, corrections)
      p.task.changelogPositions.set(p.logged.key, p.tailEnd! + BigInt(corrections.length))
    }
  } finally {
    deps.progress.end()
  }
  for (const p of parts) if (p.tailEnd === undefined) p.task.changelogPositions.set(p.logged.key, p.end)
  for (const t of todo) t.restored = true
}

async function readChangelogs(
  parts: PartitionRestore[],
  deps: RestoreDeps,
  onRecords: (p: PartitionRestore, records: ChangelogRecord[]) => void,
): Promise<void> {
  const byKey = new Map(parts.map((p) => [p.logged.key, p]))
  const consumer = deps.client.consumer({ offsetReset: 'earliest' })
  let left = parts.length
  let resolveAll: () => void = () => {}
  const allDone = new Promise<void>((resolve) => {
    resolveAll = resolve
  })
  const finish = (p: PartitionRestore, leftUnread: number): void => {
    if (p.done) return
    p.done = true
    deps.progress.finishedPartition(leftUnread)
    consumer.pause([p.logged.changelog])
    if (--left === 0) resolveAll()
  }
  try {
    await consumer.assign(parts.map((p) => p.logged.changelog))
    for (const p of parts) consumer.seek({ ...p.logged.changelog, offset: p.start })
    const run = consumer.run({
      eachBatch: ({ batch }) => {
        const p = byKey.get(tpKey(batch.topic, batch.partition))
        if (p === undefined || p.done) return
        const records: ChangelogRecord[] = []
        let last = -1n
        for (const m of batch.messages) {
          if (m.offset >= p.end) break
          last = m.offset
          // Copies: the consumer's buffers are views of a whole fetch response, which a store
          // that keeps them (an in-memory one) would otherwise hold on to.
          if (m.key !== null) {
            records.push({
              key: Buffer.from(m.key),
              value: m.value === null ? null : Buffer.from(m.value),
              timestamp: Number(m.timestamp),
            })
          }
        }
        if (records.length > 0) {
          try {
            onRecords(p, records)
          } catch (err) {
            throw new StreamsError('STATE', `restoring store ${p.logged.spec.name} of task ${p.task.key} failed`, {
              cause: err,
              details: { taskId: p.task.key, store: p.logged.spec.name },
            })
          }
        }
        if (last + 1n >= p.end || batch.messages.at(-1)!.offset + 1n >= p.end) finish(p, 0)
      },
    })
    // A compacted log can end in a gap (its last offsets removed): the position then passes the
    // end without a record at end - 1. Looked at only while a restore runs.
    const idle = setInterval(() => {
      for (const p of parts) {
        if (p.done) continue
        consumer
          .position(p.logged.changelog)
          .then((pos) => {
            if (pos >= p.end) finish(p, 0)
          })
          .catch(() => {})
      }
    }, deps.idleCheckMs ?? 250)
    try {
      await Promise.race([allDone, run.done.then(() => allDone)])
    } finally {
      clearInterval(idle)
      await run.stop()
    }
  } finally {
    await consumer.close()
  }
}

async function offsetsOf(
  admin: Admin,
  tps: TopicPartition[],
  spec: 'earliest' | 'latest',
): Promise<Map<string, bigint>> {
  const listed = await admin.listOffsets(tps, spec)
  return new Map(listed.map((o) => [tpKey(o.topic, o.partition), o.offset]))
}
