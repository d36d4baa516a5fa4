/**
 * What this instance tells the group leader at every JoinGroup (the streams assignor's
 * `localState()`, assignment/streams-partition-assignor.ts): a stable instance id, the tasks it
 * runs or keeps suspended, and the other tasks whose state it has on disk, so the leader keeps
 * a task where its state is instead of restoring it elsewhere from scratch.
 *
 * - The instance id lives in `<stateDir>/instance-id`, made once: a restarted instance (a new
 *   member id) is recognised as the owner of the same state directory.
 * - Standby tasks report their real lag: the changelog records they have not applied, from
 *   the high watermarks of their own changelog fetches (standby-tasks.ts).
 * - A task directory with a readable checkpoint holds state that a restore only has to top up.
 *   The join cannot wait for a request, so its lag is computed from changelog end offsets read
 *   after the last rebalance (OnDiskLags, refreshed in the background): the end less the
 *   checkpointed offset, summed over the task's logged stores (a store without a checkpoint
 *   entry counts from offset 0). Ends not known yet report UNKNOWN_LAG: state here still beats
 *   no state (Infinity to the leader), but loses to any copy whose lag is measured.
 */
import { randomUUID } from 'node:crypto'
import type { Admin } from '@sluice/client'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TaskId } from '../api/task-id.js'
import { readCheckpoint } from '../state/checkpoint.js'
import { changelogTopic } from '../state/store-types.js'
import { tpKey } from './record-sender.js'
import type { TopologyPlan } from './task-contract.js'
import type { StreamsSubscriptionInfo, TaskLag } from './assignment/streams-user-data.js'

const INSTANCE_ID_FILE = 'instance-id'
/** The lag of a task on disk whose changelog ends are not known yet. */
export const UNKNOWN_LAG = Number.MAX_SAFE_INTEGER

/** The lag of the state a checkpoint describes, undefined when it cannot be told. */
export type OnDiskLagOf = (task: TaskId, checkpoint: ReadonlyMap<string, bigint>) => number | undefined
const TASK_DIR = /^(\d+)_(\d+)$/

/** This state directory's instance id, made on first use. */
export function instanceIdOf(stateDir: string): string {
  mkdirSync(stateDir, { recursive: true })
  const file = join(stateDir, INSTANCE_ID_FILE)
  if (existsSync(file)) {
    const id = readFileSync(file, 'utf8').trim()
    if (id !== '') return id
  }
  const id = randomUUID()
  writeFileSync(file, `${id}\n`)
  return id
}

/** Tasks with a readable checkpoint under `stateDir`, other than `except` (task keys), with their lag. */
export function tasksOnDisk(
  stateDir: string,
  except: ReadonlySet<string>,
  lagOf: OnDiskLagOf = () => undefined,
): TaskLag[] {
  let names: string[]
  try {
    names = readdirSync(stateDir)
  } catch {
    return []
  }
  const out: TaskLag[] = []
  for (const name of names.sort()) {
    const m = TASK_DIR.exec(name)
    if (m === null || except.has(name)) continue
    const read = readCheckpoint(join(stateDir, name))
    if (read.status !== 'ok') continue
    const task = { subtopology: Number(m[1]), partition: Number(m[2]) }
    out.push({ task, lag: lagOf(task, read.offsets) ?? UNKNOWN_LAG })
  }
  return out
}

export interface LocalTaskStateExtra {
  /** The standbys this instance keeps, with their measured lag. */
  readonly standbys?: readonly { key: string; id: TaskId; lag: number }[]
  readonly onDiskLag?: OnDiskLagOf
}

export function localTaskState(
  instanceId: string,
  stateDir: string,
  active: readonly { key: string; id: TaskId }[],
  endpoint = '',
  extra: LocalTaskStateExtra = {},
): StreamsSubscriptionInfo {
  const standbys = (extra.standbys ?? []).filter((s) => !active.some((a) => a.key === s.key))
  const except = new Set([...active.map((t) => t.key), ...standbys.map((s) => s.key)])
  return {
    instanceId,
    endpoint,
    activeTasks: active.map((t) => t.id),
    standbyTasks: [
      ...standbys.map((s) => ({ task: s.id, lag: s.lag })),
      ...tasksOnDisk(stateDir, except, extra.onDiskLag),
    ],
  }
}

/**
 * The changelog ends of the tasks held only on disk, read in the background (after every
 * rebalance) so that the next join can report their lag without waiting.
 */
export class OnDiskLags {
  private readonly ends = new Map<string, bigint>()

  constructor(private readonly plan: TopologyPlan) {}

  /** Best effort: a failed read leaves the ends as they were (their tasks report UNKNOWN_LAG). */
  async refresh(admin: Admin, stateDir: string, except: ReadonlySet<string>): Promise<void> {
    const tps = tasksOnDisk(stateDir, except).flatMap((t) => this.changelogsOf(t.task))
    if (tps.length === 0) return
    for (const o of await admin.listOffsets(tps, 'latest')) this.ends.set(tpKey(o.topic, o.partition), o.offset)
  }

  readonly lagOf: OnDiskLagOf = (task, checkpoint) => {
    let lag = 0n
    for (const { store, topic, partition } of this.changelogsOf(task)) {
      const end = this.ends.get(tpKey(topic, partition))
      if (end === undefined) return undefined
      const from = checkpoint.get(store) ?? 0n
      if (end > from) lag += end - from
    }
    return Number(lag)
  }

  private changelogsOf(task: TaskId): Array<{ store: string; topic: string; partition: number }> {
    const sub = this.plan.subtopologies.find((s) => s.id === task.subtopology)
    return (sub?.stores ?? [])
      .filter((spec) => spec.logging)
      .map((spec) => ({
        store: spec.name,
        topic: changelogTopic(this.plan.applicationId, spec.name),
        partition: task.partition,
      }))
  }
}
