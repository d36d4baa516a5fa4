/**
 * The global stores of one instance: one per globalTable of the plan, each holding the whole
 * topic. Opened the same way by the runtime (global-state.ts, which loads and updates them
 * from their topics) and by the TopologyTestDriver, and handed to every task through
 * TaskDeps.globalStore, so both wire global tables into tasks by the same code.
 *
 * A global store is not logged: its topic is its changelog. Persistent ones keep their files
 * under `<stateDir>/global/<store>`, a directory no task id can name (task directories are
 * `<subtopology>_<partition>`).
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { TaskId } from '../api/task-id.js'
import type { StateStore } from '../state/store-types.js'
import type { GlobalStorePlan, TopologyPlan } from './task-contract.js'

/** The directory under an instance's state directory that holds its global stores (and their checkpoint). */
export const GLOBAL_STATE_DIR = 'global'

/** The task id a global store's context carries: it belongs to no task. */
const GLOBAL_TASK_ID: TaskId = { subtopology: -1, partition: 0 }

export interface OpenGlobalStore {
  readonly plan: GlobalStorePlan
  readonly store: StateStore
}

export class GlobalStores {
  private constructor(
    /** Where the stores keep their files: `<stateDir>/global`. */
    readonly dir: string,
    readonly all: readonly OpenGlobalStore[],
  ) {}

  /** Builds and opens every global store of the plan; on a failure the ones already open are closed. */
  static open(plan: TopologyPlan, stateDir: string): GlobalStores {
    const dir = join(stateDir, GLOBAL_STATE_DIR)
    const opened: OpenGlobalStore[] = []
    try {
      if (plan.globalStores.length > 0) mkdirSync(dir, { recursive: true })
      for (const g of plan.globalStores) {
        const store = plan.createGlobalStore(g.topic)
        store.init({ applicationId: plan.applicationId, taskId: GLOBAL_TASK_ID, stateDir: dir, streamTimeMs: () => -1 })
        opened.push({ plan: g, store })
      }
    } catch (err) {
      for (const o of opened) closeQuietly(o.store)
      throw err
    }
    return new GlobalStores(dir, opened)
  }

  /** The store a globalTable's topic fills. */
  byTopic(topic: string): StateStore | undefined {
    return this.all.find((g) => g.plan.topic === topic)?.store
  }

  /** The store of that name: what TaskDeps.globalStore answers. */
  byName(name: string): StateStore | undefined {
    return this.all.find((g) => g.store.name === name)?.store
  }

  close(): void {
    let first: unknown
    for (const g of this.all) {
      try {
        if (g.store.isOpen) g.store.close()
      } catch (err) {
        first ??= err
      }
    }
    if (first !== undefined) throw first
  }
}

function closeQuietly(store: StateStore): void {
  try {
    if (store.isOpen) store.close()
  } catch {
    // The error that made us close is the one worth reporting.
  }
}
