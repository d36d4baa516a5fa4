/**
 * What this instance tells the group leader at every JoinGroup (the streams assignor's
 * `localState()`, assignment/streams-partition-assignor.ts): a stable instance id, the tasks it
 * runs or keeps suspended, and the other tasks whose state it has on disk, so the leader keeps
 * a task where its state is instead of restoring it elsewhere from scratch.
 *
 * - The instance id lives in `<stateDir>/instance-id`, made once: a restarted instance (a new
 *   member id) is recognised as the owner of the same state directory.
 * - A task directory with a readable checkpoint holds state that a restore only has to top up;
 *   it is reported with lag 0. The join cannot wait for changelog end offsets, so this is a
 *   preference (state here beats no state), not a measurement; the leader breaks ties between
 *   instances by instance order (task-assignor.ts).
 */
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TaskId } from '../api/task-id.js'
import { readCheckpoint } from '../state/checkpoint.js'
import type { StreamsSubscriptionInfo, TaskLag } from './assignment/streams-user-data.js'

const INSTANCE_ID_FILE = 'instance-id'
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

/** Tasks with a readable checkpoint under `stateDir`, other than `except` (task keys). */
export function tasksOnDisk(stateDir: string, except: ReadonlySet<string>): TaskLag[] {
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
    out.push({ task: { subtopology: Number(m[1]), partition: Number(m[2]) }, lag: 0 })
  }
  return out
}

export function localTaskState(
  instanceId: string,
  stateDir: string,
  active: readonly { key: string; id: TaskId }[],
  endpoint = '',
): StreamsSubscriptionInfo {
  return {
    instanceId,
    endpoint,
    activeTasks: active.map((t) => t.id),
    standbyTasks: tasksOnDisk(stateDir, new Set(active.map((t) => t.key))),
  }
}
