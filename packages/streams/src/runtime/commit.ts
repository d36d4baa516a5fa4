/**
 * THE commit path of at-least-once processing, in one function so that exactly-once (a
 * transaction around the same steps) can replace it when Sluice has transactions. Order:
 *
 * 1. task.flush() for every task: caches empty into the changelogs and downstream, stores make
 *    their writes durable;
 * 2. the producer sends everything queued and every record sent so far (output, repartition and
 *    changelog) is acknowledged with acks 'all'; a failed record throws here, so nothing after
 *    it is committed and the input is processed again (at-least-once);
 * 3. each task's checkpoint file is written (the changelog offsets its persistent stores hold);
 * 4. the input offsets (processed + 1) of those tasks are committed to the group, each with the
 *    changelog end offsets it vouches for and its stream time in its metadata (changelog-bounds.ts),
 *    and an offset of a repartition partition with the stamp positions applied from it
 *    (applied-positions.ts), so they are exactly as committed as the state; a task whose
 *    changelogs moved without new input (a punctuation) commits its offsets again to carry them.
 *
 * It runs every commitIntervalMs, before tasks are closed on revocation and on close(), always
 * on the app's serial lane (serial-work.ts), so no record is processed while it runs.
 */
import type { CommitOffset, GroupConsumer, TopicPartition } from '@sluice/client'
import type { ActiveTask } from './active-task.js'
import { writeCheckpoint } from '../state/checkpoint.js'
import { encodeChangelogBounds } from './changelog-bounds.js'
import { tpKey, type ProducerRecordSender } from './record-sender.js'

export interface CommitDeps {
  readonly sender: ProducerRecordSender
  readonly consumer: GroupConsumer
}

export interface CommitResult {
  /** The input offsets committed (next offset to read per partition). */
  readonly offsets: readonly CommitOffset[]
}

/**
 * Commits `tasks`. Rejects when a step fails: with StreamsError 'RUNTIME' when a record was
 * not written or 'STORE_IO' when a checkpoint was not (nothing committed; the app must stop), or
 * with the group's SluiceError (for instance REBALANCE_IN_PROGRESS: the offsets stay
 * uncommitted and the records are read again by whoever owns them next).
 */
export async function commitTasks(tasks: readonly ActiveTask[], deps: CommitDeps): Promise<CommitResult> {
  const running = tasks.filter((t) => t.restored)
  for (const t of running) t.task.flush()
  await deps.sender.flush()
  for (const t of running) {
    const entries = new Map<string, bigint>()
    for (const l of t.logged) {
      const acked = deps.sender.changelogEnds.get(l.key)
      const held = t.changelogPositions.get(l.key)
      const position = acked !== undefined && (held === undefined || acked > held) ? acked : held
      if (position === undefined) continue
      t.changelogPositions.set(l.key, position)
      if (l.spec.persistent) entries.set(l.spec.name, position)
    }
    // The state stores' helper (state/checkpoint.ts): atomic, fsynced, checksummed; throws StreamsError 'STORE_IO'.
    if (entries.size > 0) writeCheckpoint(t.dir, entries)
  }
  const perTask = running.map((t) => ({ t, ...offsetsWithBounds(t) }))
  const offsets: CommitOffset[] = perTask.flatMap((p) => p.offsets)
  if (offsets.length > 0) await deps.consumer.commit(offsets)
  for (const { t, offsets: mine, bounds } of perTask) {
    for (const o of mine) t.committed.set(tpKey(o.topic, o.partition), o.offset)
    if (mine.length > 0) t.committedBounds = bounds
  }
  return { offsets }
}

/**
 * The task's offsets to commit, each carrying its changelog bounds (and, for a repartition
 * partition, its applied positions); [] when nothing moved. `bounds`: the part every offset
 * shares, to tell whether the stores moved since the last commit.
 */
function offsetsWithBounds(t: ActiveTask): { offsets: CommitOffset[]; bounds: string } {
  const positions = new Map<string, bigint>()
  for (const l of t.logged) {
    const p = t.changelogPositions.get(l.key)
    if (p !== undefined) positions.set(l.key, p)
  }
  const bounds = encodeChangelogBounds(positions, t.task.streamTimeMs)
  let offsets: Array<TopicPartition & { offset: bigint }> = t.offsetsToCommit()
  if (offsets.length === 0 && t.logged.length > 0 && bounds !== t.committedBounds) {
    // Nothing new read, but the stores wrote (a punctuation): commit the same offsets again.
    offsets = [...t.committed].flatMap(([k, offset]) => {
      const tp = t.partitions.find((p) => tpKey(p.topic, p.partition) === k)
      return tp === undefined ? [] : [{ topic: tp.topic, partition: tp.partition, offset }]
    })
  }
  return {
    bounds,
    offsets: offsets.map((o) => {
      const applied = t.applied.snapshot(o.topic, o.partition)
      return {
        ...o,
        metadata: applied.size === 0 ? bounds : encodeChangelogBounds(positions, t.task.streamTimeMs, applied),
      }
    }),
  }
}
