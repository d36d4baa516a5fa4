/**
 * OffsetCommit and OffsetFetch: request validation and the per-partition answers. A commit is
 * checked whole first (group id, loading, the sender's membership and generation), then per
 * partition (topic and partition exist, offset >= 0, metadata size, named once); only the
 * partitions that pass are written, in one append, and answered once it is acknowledged.
 */
import { SluiceError, errorId, toBigInt, topicNameProblem, type ErrorCodeName, type wire } from '@sluice/protocol'
import type { GroupManager } from './group-manager.js'
import { groupIdProblem } from './group-manager.js'
import { commitFailure, type OffsetManager, type OffsetWrite } from './offset-manager.js'

export interface OffsetRequestContext {
  readonly groups: GroupManager
  readonly offsets: OffsetManager
  readonly offsetMetadataMaxBytes: number
  /** Partition count of an existing topic, else undefined. */
  readonly partitionsOf: (topic: string) => number | undefined
  readonly now: () => number
}

type PartitionAnswer = { code: ErrorCodeName; message: string }

export async function offsetCommit(
  ctx: OffsetRequestContext,
  req: wire.OffsetCommitRequest__Output,
): Promise<wire.OffsetCommitResponse__Output> {
  const whole = (code: ErrorCodeName, message: string): wire.OffsetCommitResponse__Output => ({
    error_code: errorId(code),
    error_message: message,
    topics: req.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => ({
        partition: p.partition,
        error_code: errorId(code),
        error_message: message,
      })),
    })),
  })
  const idProblem = groupIdProblem(req.group_id)
  if (idProblem !== undefined) return whole('INVALID_GROUP_ID', idProblem)
  if (!ctx.offsets.loaded)
    return whole('COORDINATOR_LOAD_IN_PROGRESS', 'the coordinator is still loading committed offsets')
  const denied = ctx.groups.checkCommit(req.group_id, req.member_id, req.group_instance_id, req.generation_id)
  if (denied !== undefined) return whole(denied, commitDeniedMessage(denied, req))
  const answers = new Map<string, PartitionAnswer>()
  const writes: OffsetWrite[] = []
  const writtenKeys: string[] = []
  const seen = new Map<string, number>()
  for (const t of req.topics)
    for (const p of t.partitions) seen.set(key(t.topic, p.partition), (seen.get(key(t.topic, p.partition)) ?? 0) + 1)
  const now = ctx.now()
  // A member may commit only what it was assigned (Sluice is stricter than Kafka here): a
  // commit for someone else's partition would move that owner's position under it.
  const assigned = ctx.groups.assignedPartitions(req.group_id, req.member_id)
  for (const t of req.topics) {
    for (const p of t.partitions) {
      const k = key(t.topic, p.partition)
      const problem =
        checkPartition(ctx, t.topic, p, seen.get(k)!) ??
        (assigned !== undefined && !assigned.has(`${t.topic}/${p.partition}`)
          ? {
              code: 'PARTITION_NOT_ASSIGNED' as const,
              message: `member ${req.member_id} of group ${req.group_id} is not assigned ${t.topic}/${p.partition}`,
            }
          : undefined)
      if (problem !== undefined) {
        answers.set(k, problem)
        continue
      }
      writes.push({
        topic: t.topic,
        partition: p.partition,
        value: {
          offset: toBigInt(p.committed_offset),
          leaderEpoch: p.committed_leader_epoch,
          metadata: p.metadata,
          commitTimestamp: now,
        },
      })
      writtenKeys.push(k)
    }
  }
  if (writes.length > 0) {
    let result: PartitionAnswer = { code: 'NONE', message: '' }
    try {
      await ctx.offsets.commit(req.group_id, writes)
    } catch (e) {
      const err = commitFailure(e)
      result = { code: err.code, message: err.message }
    }
    for (const k of writtenKeys) answers.set(k, result)
  }
  return {
    error_code: 0,
    error_message: '',
    topics: req.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => {
        const a = answers.get(key(t.topic, p.partition))!
        return { partition: p.partition, error_code: errorId(a.code), error_message: a.message }
      }),
    })),
  }
}

function checkPartition(
  ctx: OffsetRequestContext,
  topic: string,
  p: wire.OffsetCommitPartition__Output,
  count: number,
): PartitionAnswer | undefined {
  const nameProblem = topicNameProblem(topic)
  if (nameProblem !== undefined) return { code: 'INVALID_TOPIC_EXCEPTION', message: nameProblem }
  if (count > 1)
    return { code: 'INVALID_REQUEST', message: `${topic}/${p.partition} appears more than once in the request` }
  const n = ctx.partitionsOf(topic)
  if (n === undefined || !Number.isInteger(p.partition) || p.partition < 0 || p.partition >= n) {
    return { code: 'UNKNOWN_TOPIC_OR_PARTITION', message: `${topic}/${p.partition} does not exist` }
  }
  let offset: bigint
  try {
    offset = toBigInt(p.committed_offset)
  } catch {
    return { code: 'INVALID_REQUEST', message: `committed_offset ${String(p.committed_offset)} is not an integer` }
  }
  if (offset < 0n) return { code: 'INVALID_REQUEST', message: `committed_offset ${offset} must be >= 0` }
  if (Buffer.byteLength(p.metadata, 'utf8') > ctx.offsetMetadataMaxBytes) {
    return {
      code: 'INVALID_REQUEST',
      message: `offset metadata is larger than ${ctx.offsetMetadataMaxBytes} bytes (offset.metadata.max.bytes)`,
    }
  }
  return undefined
}

function commitDeniedMessage(code: ErrorCodeName, req: wire.OffsetCommitRequest__Output): string {
  switch (code) {
    case 'NON_EMPTY_GROUP':
      return `group ${req.group_id} has active members; a commit without a member (generation -1) needs an empty group`
    case 'ILLEGAL_GENERATION':
      return `generation ${req.generation_id} is not the current generation of group ${req.group_id}`
    case 'UNKNOWN_MEMBER_ID':
      return `member ${req.member_id === '' ? '(empty)' : req.member_id} is not in group ${req.group_id}`
    case 'FENCED_INSTANCE_ID':
      return `instance ${req.group_instance_id} of group ${req.group_id} now belongs to another member`
    case 'REBALANCE_IN_PROGRESS':
      return `group ${req.group_id} is completing a rebalance; commit after SyncGroup`
    default:
      return new SluiceError(code).message
  }
}

export function offsetFetch(
  ctx: OffsetRequestContext,
  req: wire.OffsetFetchRequest__Output,
): wire.OffsetFetchResponse__Output {
  const idProblem = groupIdProblem(req.group_id)
  if (idProblem !== undefined) return { error_code: errorId('INVALID_GROUP_ID'), error_message: idProblem, topics: [] }
  if (!ctx.offsets.loaded) {
    return {
      error_code: errorId('COORDINATOR_LOAD_IN_PROGRESS'),
      error_message: 'the coordinator is still loading committed offsets',
      topics: [],
    }
  }
  const committed = ctx.offsets.list(req.group_id)
  const byTopic = new Map<string, wire.OffsetFetchPartitionResponse__Output[]>()
  const answer = (topic: string, partition: number): wire.OffsetFetchPartitionResponse__Output => {
    const o = ctx.offsets.get(req.group_id, topic, partition)
    return {
      partition,
      committed_offset: o === undefined ? '-1' : o.offset.toString(),
      committed_leader_epoch: o?.leaderEpoch ?? -1,
      metadata: o?.metadata ?? '',
      error_code: 0,
      error_message: '',
    }
  }
  const add = (topic: string, r: wire.OffsetFetchPartitionResponse__Output): void => {
    const list = byTopic.get(topic) ?? []
    list.push(r)
    byTopic.set(topic, list)
  }
  if (req.topics.length === 0) {
    for (const o of committed) add(o.topic, answer(o.topic, o.partition))
  } else {
    for (const t of req.topics) {
      if (t.partitions.length === 0) {
        byTopic.set(t.topic, byTopic.get(t.topic) ?? [])
        for (const o of committed) if (o.topic === t.topic) add(t.topic, answer(t.topic, o.partition))
      } else {
        for (const p of t.partitions) add(t.topic, answer(t.topic, p))
      }
    }
  }
  return {
    error_code: 0,
    error_message: '',
    topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
  }
}

function key(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`
}
