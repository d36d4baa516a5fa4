/**
 * CreateTopics, DeleteTopics and CreatePartitions. Every topic of a request is checked on its own
 * and answered with its own error code; the valid ones are written together in one store multi
 * (one journal entry), and nothing at all is written for validate_only.
 */
import {
  SluiceError,
  errorId,
  isInternalTopic,
  topicNameProblem,
  validateTopicConfigOverrides,
  type ErrorCodeName,
  type wire,
} from '@sluice/protocol'
import { joinPath, type MetadataStore, type StoreOp } from '../store/metadata-store.js'
import type { Controller } from './controller.js'
import type { TopicState } from './cluster-view.js'
import {
  encodeState,
  encodeTopic,
  encodeTopicConfig,
  newKafkaUuid,
  partitionPath,
  partitionsPath,
  statePath,
  topicConfigPath,
  topicPath,
  type PartitionStateRecord,
} from './layout.js'
import { initialState } from './partition-election.js'
import { assignReplicas } from './placement.js'

class ItemError extends Error {
  constructor(
    readonly code: ErrorCodeName,
    message: string,
  ) {
    super(message)
  }
}

/** Runs `check`; a typed failure becomes the item's error code instead of failing the call. */
function itemResult<T>(check: () => T): T | ItemError {
  try {
    return check()
  } catch (e) {
    if (e instanceof ItemError) return e
    if (e instanceof SluiceError) return new ItemError(e.code, e.message)
    throw e
  }
}

function counts(names: readonly string[]): Map<string, number> {
  const m = new Map<string, number>()
  for (const n of names) m.set(n, (m.get(n) ?? 0) + 1)
  return m
}

/** The checks every per-topic item starts with: a legal name, named once in the request. */
function checkName(name: string, seen: Map<string, number>): void {
  const problem = topicNameProblem(name)
  if (problem !== undefined) throw new ItemError('INVALID_TOPIC_EXCEPTION', problem)
  if ((seen.get(name) ?? 0) > 1)
    throw new ItemError('INVALID_REQUEST', `topic "${name}" appears more than once in the request`)
}

/** Validates explicit assignments for partitions first .. first + n - 1; returns them by partition. */
export function validateAssignments(
  assignments: readonly wire.ReplicaAssignment__Output[],
  first: number,
  isLive: (id: number) => boolean,
  maxPartitions: number,
  replicationFactor?: number,
): number[][] {
  const bad = (m: string): ItemError => new ItemError('INVALID_REPLICA_ASSIGNMENT', m)
  if (first + assignments.length > maxPartitions) {
    throw new ItemError(
      'INVALID_PARTITIONS',
      `${first + assignments.length} partitions exceed the limit of ${maxPartitions}`,
    )
  }
  const out: number[][] = new Array<number[]>(assignments.length)
  for (const a of assignments) {
    const i = a.partition - first
    if (!Number.isInteger(a.partition) || i < 0 || i >= assignments.length) {
      throw bad(
        `partition ${a.partition} is outside ${first}..${first + assignments.length - 1} (assignments must cover each new partition once, without gaps)`,
      )
    }
    if (out[i] !== undefined) throw bad(`partition ${a.partition} is assigned twice`)
    if (a.replicas.length === 0) throw bad(`partition ${a.partition} has no replicas`)
    if (new Set(a.replicas).size !== a.replicas.length)
      throw bad(`partition ${a.partition} lists a broker twice: ${JSON.stringify(a.replicas)}`)
    const unknown = a.replicas.find((r) => !isLive(r))
    if (unknown !== undefined) throw bad(`partition ${a.partition} names broker ${unknown}, which is not a live broker`)
    const rf = replicationFactor ?? out.find((x) => x !== undefined)?.length ?? a.replicas.length
    if (a.replicas.length !== rf)
      throw bad(`partition ${a.partition} has ${a.replicas.length} replicas, the others have ${rf}`)
    out[i] = [...a.replicas]
  }
  return out
}

const REQUEST_PARTITION_BUDGET_TOPICS = 10

interface NewTopic {
  readonly name: string
  readonly topicId: string
  readonly assignment: number[][]
  readonly config: Record<string, string>
}

function planCreate(ctl: Controller, t: wire.CreatableTopic__Output, seen: Map<string, number>): NewTopic {
  checkName(t.name, seen)
  if (ctl.view.topics.has(t.name)) throw new ItemError('TOPIC_ALREADY_EXISTS', `topic "${t.name}" already exists`)
  const max = ctl.options.maxPartitionsPerTopic
  let assignment: number[][]
  if (t.assignments.length > 0) {
    if (t.num_partitions !== -1 || t.replication_factor !== -1) {
      throw new ItemError(
        'INVALID_REQUEST',
        'with explicit assignments, num_partitions and replication_factor must be -1',
      )
    }
    assignment = validateAssignments(t.assignments, 0, ctl.view.isLive, max)
  } else {
    const n = t.num_partitions === -1 ? ctl.options.defaultNumPartitions : t.num_partitions
    if (!Number.isInteger(n) || n < 1 || n > max)
      throw new ItemError(
        'INVALID_PARTITIONS',
        `num_partitions ${t.num_partitions} must be -1 (default) or in 1..${max}`,
      )
    const rf = t.replication_factor === -1 ? ctl.options.defaultReplicationFactor : t.replication_factor
    const live = ctl.view.liveBrokerIds()
    if (!Number.isInteger(rf) || rf < 1)
      throw new ItemError(
        'INVALID_REPLICATION_FACTOR',
        `replication_factor ${t.replication_factor} must be -1 (default) or >= 1`,
      )
    if (rf > live.length)
      throw new ItemError(
        'INVALID_REPLICATION_FACTOR',
        `replication factor ${rf} is larger than the ${live.length} live brokers`,
      )
    assignment = assignReplicas({ brokers: live, numPartitions: n, replicationFactor: rf, random: ctl.options.random })
  }
  const config = validateTopicConfigOverrides(t.configs)
  return { name: t.name, topicId: newKafkaUuid(), assignment, config }
}

export async function createTopics(
  ctl: Controller,
  req: wire.CreateTopicsRequest__Output,
): Promise<wire.CreateTopicsResponse> {
  return await ctl.serial(async () => {
    const seen = counts(req.topics.map((t) => t.name))
    const planned: Array<{ plan: NewTopic; states: PartitionStateRecord[] }> = []
    // One request may not create more than this many partitions in total (it is one journal entry).
    let budget = ctl.options.maxPartitionsPerTopic * REQUEST_PARTITION_BUDGET_TOPICS
    const results = req.topics.map((t): wire.CreatableTopicResult => {
      const plan = itemResult(() => {
        const p = planCreate(ctl, t, seen)
        if (p.assignment.length > budget)
          throw new ItemError('INVALID_PARTITIONS', 'this request creates too many partitions at once; split it')
        budget -= p.assignment.length
        return p
      })
      if (plan instanceof ItemError) {
        return {
          name: t.name,
          error_code: errorId(plan.code),
          error_message: plan.message,
          topic_id: '',
          num_partitions: -1,
          replication_factor: -1,
        }
      }
      const ctx = ctl.electionContext(t.name)
      planned.push({ plan, states: plan.assignment.map((r) => initialState(r, ctx)) })
      return {
        name: t.name,
        error_code: 0,
        error_message: '',
        topic_id: req.validate_only ? '' : plan.topicId,
        num_partitions: plan.assignment.length,
        replication_factor: plan.assignment[0]?.length ?? 0,
      }
    })
    if (req.validate_only || planned.length === 0) return { topics: results }
    const ops: StoreOp[] = []
    for (const { plan, states } of planned) {
      ops.push({ type: 'create', path: topicPath(plan.name), data: encodeTopic(plan) })
      ops.push({ type: 'create', path: partitionsPath(plan.name), data: Buffer.alloc(0) })
      states.forEach((s, p) => {
        ops.push({ type: 'create', path: partitionPath(plan.name, p), data: Buffer.alloc(0) })
        ops.push({ type: 'create', path: statePath(plan.name, p), data: encodeState(s) })
      })
      ops.push(await configWrite(ctl.options.store, plan.name, plan.config))
    }
    await ctl.commit({
      ops,
      apply: () => {
        for (const { plan, states } of planned) {
          ctl.view.topics.set(plan.name, {
            name: plan.name,
            topicId: plan.topicId,
            assignment: plan.assignment,
            states,
            config: plan.config,
          })
        }
      },
      partitions: planned.flatMap(({ plan }) => plan.assignment.map((_, p) => [plan.name, p] as const)),
      configTopics: planned.map(({ plan }) => plan.name),
    })
    ctl.log.info(
      { topics: planned.map(({ plan }) => ({ name: plan.name, partitions: plan.assignment.length })) },
      'topics created',
    )
    return { topics: results }
  })
}

async function configWrite(store: MetadataStore, topic: string, config: Record<string, string>): Promise<StoreOp> {
  const path = topicConfigPath(topic)
  const data = encodeTopicConfig(config)
  return (await store.exists(path)) === undefined
    ? { type: 'create', path, data }
    : { type: 'set', path, data, version: -1 }
}

/** Delete ops for a subtree, children before parents. */
async function deleteTreeOps(store: MetadataStore, path: string, out: StoreOp[]): Promise<void> {
  if ((await store.exists(path)) === undefined) return
  for (const child of await store.children(path)) await deleteTreeOps(store, joinPath(path, child), out)
  out.push({ type: 'delete', path, version: -1 })
}

export async function deleteTopics(
  ctl: Controller,
  req: wire.DeleteTopicsRequest__Output,
): Promise<wire.DeleteTopicsResponse> {
  return await ctl.serial(async () => {
    const seen = counts(req.names)
    const doomed: string[] = []
    const topics = req.names.map((name): wire.TopicResult => {
      const r = itemResult(() => {
        checkName(name, seen)
        if (!ctl.view.topics.has(name))
          throw new ItemError('UNKNOWN_TOPIC_OR_PARTITION', `topic "${name}" does not exist`)
        if (isInternalTopic(name))
          throw new ItemError('INVALID_TOPIC_EXCEPTION', `internal topic "${name}" cannot be deleted`)
      })
      if (r instanceof ItemError) return { name, error_code: errorId(r.code), error_message: r.message }
      doomed.push(name)
      return { name, error_code: 0, error_message: '' }
    })
    if (doomed.length === 0) return { topics }
    const ops: StoreOp[] = []
    for (const name of doomed) {
      await deleteTreeOps(ctl.options.store, topicPath(name), ops)
      await deleteTreeOps(ctl.options.store, topicConfigPath(name), ops)
    }
    await ctl.commit({
      ops,
      apply: () => {
        for (const n of doomed) ctl.view.topics.delete(n)
      },
      deletedTopics: doomed,
    })
    ctl.log.info({ topics: doomed }, 'topics deleted')
    return { topics }
  })
}

interface NewPartitions {
  readonly topic: TopicState
  readonly assignment: number[][]
}

function planPartitions(
  ctl: Controller,
  t: wire.CreatePartitionsTopic__Output,
  seen: Map<string, number>,
): NewPartitions {
  checkName(t.name, seen)
  const topic = ctl.view.topics.get(t.name)
  if (topic === undefined) throw new ItemError('UNKNOWN_TOPIC_OR_PARTITION', `topic "${t.name}" does not exist`)
  const current = topic.assignment.length
  const max = ctl.options.maxPartitionsPerTopic
  if (!Number.isInteger(t.count) || t.count <= current) {
    throw new ItemError(
      'INVALID_PARTITIONS',
      `topic "${t.name}" has ${current} partitions; the new count ${t.count} must be larger`,
    )
  }
  if (t.count > max)
    throw new ItemError('INVALID_PARTITIONS', `count ${t.count} exceeds the limit of ${max} partitions per topic`)
  const rf = topic.assignment[0]?.length ?? 1
  if (t.assignments.length > 0) {
    if (t.assignments.length !== t.count - current) {
      throw new ItemError(
        'INVALID_REPLICA_ASSIGNMENT',
        `${t.assignments.length} assignments given for ${t.count - current} new partitions`,
      )
    }
    return { topic, assignment: validateAssignments(t.assignments, current, ctl.view.isLive, max, rf) }
  }
  const live = ctl.view.liveBrokerIds()
  if (rf > live.length)
    throw new ItemError(
      'INVALID_REPLICATION_FACTOR',
      `replication factor ${rf} is larger than the ${live.length} live brokers`,
    )
  // Kafka continues the existing layout: start where partition 0's preferred leader sits.
  const startIndex = live.indexOf(topic.assignment[0]?.[0] ?? -1)
  return {
    topic,
    assignment: assignReplicas({
      brokers: live,
      numPartitions: t.count - current,
      replicationFactor: rf,
      startPartition: current,
      ...(startIndex >= 0 ? { fixedStartIndex: startIndex } : {}),
      random: ctl.options.random,
    }),
  }
}

export async function createPartitions(
  ctl: Controller,
  req: wire.CreatePartitionsRequest__Output,
): Promise<wire.CreatePartitionsResponse> {
  return await ctl.serial(async () => {
    const seen = counts(req.topics.map((t) => t.name))
    const planned: Array<{ plan: NewPartitions; states: PartitionStateRecord[] }> = []
    const topics = req.topics.map((t): wire.TopicResult => {
      const plan = itemResult(() => planPartitions(ctl, t, seen))
      if (plan instanceof ItemError)
        return { name: t.name, error_code: errorId(plan.code), error_message: plan.message }
      const ctx = ctl.electionContext(t.name)
      planned.push({ plan, states: plan.assignment.map((r) => initialState(r, ctx)) })
      return { name: t.name, error_code: 0, error_message: '' }
    })
    if (req.validate_only || planned.length === 0) return { topics }
    const ops: StoreOp[] = []
    const added: Array<readonly [string, number]> = []
    for (const {
      plan: { topic, assignment },
      states,
    } of planned) {
      const first = topic.assignment.length
      ops.push({
        type: 'set',
        path: topicPath(topic.name),
        data: encodeTopic({ ...topic, assignment: [...topic.assignment, ...assignment] }),
        version: -1,
      })
      states.forEach((s, i) => {
        ops.push({ type: 'create', path: partitionPath(topic.name, first + i), data: Buffer.alloc(0) })
        ops.push({ type: 'create', path: statePath(topic.name, first + i), data: encodeState(s) })
        added.push([topic.name, first + i])
      })
    }
    await ctl.commit({
      ops,
      apply: () => {
        for (const {
          plan: { topic, assignment },
          states,
        } of planned) {
          topic.assignment.push(...assignment)
          topic.states.push(...states)
        }
      },
      partitions: added,
    })
    ctl.log.info(
      { topics: planned.map(({ plan }) => ({ name: plan.topic.name, partitions: plan.topic.assignment.length })) },
      'partitions added',
    )
    return { topics }
  })
}

export { ItemError, itemResult, checkName, counts, configWrite }
