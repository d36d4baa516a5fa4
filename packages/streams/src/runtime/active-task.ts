/**
 * The runtime's side of one task it runs: the StreamTask the plan built, the input partitions it
 * owns, the offsets it processed and committed, and its logged stores with their changelog
 * partitions (partition = task partition), and the stamp positions it applied from repartition
 * topics (applied-positions.ts). Built by createActiveTask(), which makes the task's directory
 * `<stateDir>/<taskId>`, asks the plan for the task (its writes stamped: repartition-stamp.ts)
 * and initialises it.
 */
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { CommitOffset, TopicPartition } from '@sluice/client'
import { taskIdString, type TaskId } from '../api/task-id.js'
import { StreamsError } from '../errors.js'
import { changelogTopic, type StateStore, type StoreSpec } from '../state/store-types.js'
import { AppliedPositions } from './applied-positions.js'
import { committedStreamTimeOf } from './changelog-bounds.js'
import { tpKey } from './record-sender.js'
import { RepartitionStamper } from './repartition-stamp.js'
import type { RecordSender, StreamTask, TopologyPlan } from './task-contract.js'

export interface LoggedStore {
  readonly spec: StoreSpec
  readonly store: StateStore
  readonly changelog: TopicPartition
  readonly key: string
}

export class ActiveTask {
  readonly key: string
  /** Per input partition (tpKey): the offset of the last record processed (or skipped). */
  readonly processed = new Map<string, { tp: TopicPartition; offset: bigint }>()
  /** Per input partition (tpKey): the offset committed last (next to read). */
  readonly committed = new Map<string, bigint>()
  /** Per changelog partition (tpKey): the offset after the last record the store holds (set by restore and commits). */
  readonly changelogPositions = new Map<string, bigint>()
  /** Per input partition (tpKey): the high watermark of the last batch fetched. */
  readonly highWatermarks = new Map<string, bigint>()
  /** False until its stores are restored; it processes nothing before. */
  restored = false
  /** The changelog bounds and stream time (changelog-bounds.ts) its last commit carried. */
  committedBounds: string | undefined
  /** Per repartition partition it reads: the stamp positions applied (its skip rule). */
  readonly applied: AppliedPositions

  constructor(
    readonly id: TaskId,
    readonly task: StreamTask,
    readonly partitions: readonly TopicPartition[],
    readonly dir: string,
    readonly logged: readonly LoggedStore[],
    /** Which of its source topics are repartition topics (their records may be stamped). */
    repartitionInputs: ReadonlySet<string> = new Set(),
  ) {
    this.key = taskIdString(id)
    this.applied = new AppliedPositions(repartitionInputs)
  }

  /** Offsets to commit: processed + 1 for every partition that moved since the last commit. */
  offsetsToCommit(): Array<TopicPartition & { offset: bigint }> {
    const out: Array<TopicPartition & { offset: bigint }> = []
    for (const [k, p] of this.processed) {
      const next = p.offset + 1n
      if (this.committed.get(k) !== next) out.push({ topic: p.tp.topic, partition: p.tp.partition, offset: next })
    }
    return out
  }

  /**
   * After its restore, before its first record: carries on from what the group's commits of its
   * partitions carry, the stream time (windows closed stay closed) and the applied positions.
   */
  resumeFromCommits(committed: readonly CommitOffset[]): void {
    this.task.resumeStreamTime?.(committedStreamTimeOf(committed))
    this.applied.resume(committed)
  }

  /** Records fetched-visible but not processed: per partition the high watermark less the next offset. */
  lag(): number {
    let lag = 0n
    for (const [k, hw] of this.highWatermarks) {
      const next = (this.processed.get(k)?.offset ?? -1n) + 1n
      if (hw > next) lag += hw - next
    }
    return Number(lag)
  }
}

export interface TaskFactoryDeps {
  readonly plan: TopologyPlan
  readonly stateDir: string
  readonly sender: RecordSender
  readonly clock: () => number
  /** The DSL task's own policy for source records its serdes cannot read ('skip' counts them). */
  readonly onDeserializationError: 'fail' | 'skip'
  partitionsOf(topic: string): number | undefined
  /** This instance's global store of that name (global-state-stores.ts); absent: the plan has none. */
  globalStore?(name: string): StateStore | undefined
}

export async function createActiveTask(
  id: TaskId,
  partitions: readonly TopicPartition[],
  deps: TaskFactoryDeps,
): Promise<ActiveTask> {
  const { plan } = deps
  const sub = plan.subtopologies.find((s) => s.id === id.subtopology)
  if (sub === undefined) {
    throw new StreamsError('TOPOLOGY', `task ${taskIdString(id)}: the plan has no sub-topology ${id.subtopology}`, {
      details: { taskId: taskIdString(id) },
    })
  }
  const dir = join(deps.stateDir, taskIdString(id))
  await mkdir(dir, { recursive: true })
  const repartitionTopics = new Set(plan.internalTopics.filter((t) => t.kind === 'repartition').map((t) => t.name))
  // Only a sub-topology without state stores re-writes the same records in the same order when
  // its input is processed again, which the skip rule needs (repartition-stamp.ts).
  const sender =
    repartitionTopics.size === 0
      ? deps.sender
      : new RepartitionStamper(deps.sender, repartitionTopics, sub.stores.length === 0)
  const task = plan.createTask(id, {
    applicationId: plan.applicationId,
    stateDir: dir,
    sender,
    clock: deps.clock,
    partitionsOf: (topic) => deps.partitionsOf(topic),
    onDeserializationError: deps.onDeserializationError,
    globalStore: (name) => deps.globalStore?.(name),
  })
  task.init()
  const logged: LoggedStore[] = []
  for (const spec of sub.stores) {
    if (!spec.logging) continue
    const store = task.stores.get(spec.name)
    if (store === undefined) {
      task.close()
      throw new StreamsError('TOPOLOGY', `task ${taskIdString(id)} has no store ${spec.name}, which its plan lists`, {
        details: { taskId: taskIdString(id), store: spec.name },
      })
    }
    const changelog = { topic: changelogTopic(plan.applicationId, spec.name), partition: id.partition }
    logged.push({ spec, store, changelog, key: tpKey(changelog.topic, changelog.partition) })
  }
  const repartitionInputs = new Set(sub.sourceTopics.filter((t) => repartitionTopics.has(t)))
  return new ActiveTask(id, task, partitions, dir, logged, repartitionInputs)
}
