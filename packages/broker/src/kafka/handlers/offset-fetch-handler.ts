/**
 * OffsetFetch 1-8, forwarded to the group coordinator, which reads the same __consumer_offsets
 * records the SDK commits. v8 (KIP-709) asks for several groups at once: one forwarded call per
 * group. Topics null (v2+) means every topic with a committed offset; an empty list means none,
 * and a topic with no partitions is answered with none, as Kafka does (Sluice's request reads an
 * empty list as "all", so those are not forwarded).
 *
 * requireStable (v7+) needs no wait: Sluice has no transactions, so no commit is ever pending.
 * Before v2 the answer has no group-level error, so a group's error goes on every partition.
 */
import { kafka, type wire } from '@sluice/protocol'
import type { KafkaApiHandler, KafkaRequestContext } from '../kafka-api-handler.js'
import { int64FromWire } from '../wire-values.js'
import { failureOf, groupErrorCode, toCoordinator } from './forwarded-call.js'

interface TopicQuery {
  readonly name: string
  readonly partitionIndexes: readonly number[]
}

interface PartitionAnswer {
  partitionIndex: number
  committedOffset: bigint
  committedLeaderEpoch: number
  metadata: string | null
  errorCode: number
}

interface GroupAnswer {
  errorCode: number
  topics: Array<{ name: string; partitions: PartitionAnswer[] }>
}

const noOffset = (partitionIndex: number, errorCode: number): PartitionAnswer => ({
  partitionIndex,
  committedOffset: -1n,
  committedLeaderEpoch: -1,
  metadata: '',
  errorCode,
})

async function fetchGroup(
  ctx: KafkaRequestContext,
  groupId: string,
  topics: readonly TopicQuery[] | null,
): Promise<GroupAnswer> {
  const asked = topics?.filter((t) => t.partitionIndexes.length > 0)
  const unasked = (topics ?? [])
    .filter((t) => t.partitionIndexes.length === 0)
    .map((t) => ({ name: t.name, partitions: [] }))
  if (asked !== undefined && asked.length === 0) return { errorCode: 0, topics: unasked }
  const grpcReq: wire.OffsetFetchRequest = {
    group_id: groupId,
    topics: (asked ?? []).map((t) => ({ topic: t.name, partitions: [...t.partitionIndexes] })),
  }
  try {
    const res = await toCoordinator<wire.OffsetFetchResponse__Output>(ctx, (c, o, cb) => c.OffsetFetch(grpcReq, o, cb))
    if (res.error_code !== 0) return failedGroup(groupErrorCode(res.error_code), topics)
    return {
      errorCode: 0,
      topics: [
        ...res.topics.map((t) => ({
          name: t.topic,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partition,
            committedOffset: int64FromWire(p.committed_offset),
            committedLeaderEpoch: p.committed_leader_epoch,
            metadata: p.metadata,
            errorCode: groupErrorCode(p.error_code),
          })),
        })),
        ...unasked,
      ],
    }
  } catch (err) {
    return failedGroup(failureOf(ctx, err, 'COORDINATOR_NOT_AVAILABLE', groupErrorCode).errorCode, topics)
  }
}

/** A group's error, repeated on every partition asked about (what a v1 client reads). */
function failedGroup(errorCode: number, topics: readonly TopicQuery[] | null): GroupAnswer {
  return {
    errorCode,
    topics: (topics ?? []).map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((p) => noOffset(p, errorCode)),
    })),
  }
}

export const offsetFetchHandler: KafkaApiHandler<kafka.OffsetFetchRequest, kafka.OffsetFetchResponseInput> = {
  codec: kafka.OffsetFetchApi,
  minVersion: 1,
  maxVersion: 8,
  async handle(req, version, ctx) {
    if (version >= 8) {
      const groups = await Promise.all(
        req.groups.map(async (g) => ({ groupId: g.groupId, ...(await fetchGroup(ctx, g.groupId, g.topics)) })),
      )
      return { groups }
    }
    const answer = await fetchGroup(ctx, req.groupId, req.topics)
    return { topics: answer.topics, errorCode: answer.errorCode }
  },
}
