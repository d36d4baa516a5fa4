/**
 * ListOffsets (proto/sluice/v1/broker.proto ListOffsetsRequest -> ListOffsetsResponse).
 *
 * timestamp -1 = latest (the high watermark: what a consumer can read up to), -2 = earliest
 * (log start offset), -3 = max timestamp (not supported yet: UNSUPPORTED_VERSION), any other
 * value >= 0 = the first offset whose batch has a timestamp at or after it, or offset -1 when no
 * readable batch does. Errors are per partition; only the leader answers.
 */
import { toBigInt, toInt64String, type wire } from '@sluice/protocol'
import {
  errorFields,
  errorFieldsFrom,
  leaderEpochMismatch,
  leaderReplica,
  NO_ERROR,
  type BrokerContext,
  type ErrorFields,
} from './context.js'

const LATEST = -1n
const EARLIEST = -2n
const MAX_TIMESTAMP = -3n

export async function handleListOffsets(
  ctx: BrokerContext,
  req: wire.ListOffsetsRequest__Output,
): Promise<wire.ListOffsetsResponse> {
  const topics = await Promise.all(
    req.topics.map(async (t) => ({
      topic: t.topic,
      partitions: await Promise.all(t.partitions.map((p) => listPartition(ctx, t.topic, p))),
    })),
  )
  return { topics }
}

async function listPartition(
  ctx: BrokerContext,
  topic: string,
  p: wire.ListOffsetsPartition__Output,
): Promise<wire.ListOffsetsPartitionResponse> {
  const partition = p.partition
  const fail = (f: ErrorFields): wire.ListOffsetsPartitionResponse => ({
    partition,
    ...f,
    timestamp: '-1',
    offset: '-1',
    leader_epoch: -1,
  })
  try {
    const replica = leaderReplica(ctx, topic, partition)
    if ('error_code' in replica) return fail(replica)
    const epochError = leaderEpochMismatch(replica, p.current_leader_epoch)
    if (epochError !== undefined) return fail(epochError)
    const ts = toBigInt(p.timestamp)
    const ok = (offset: bigint, timestamp: bigint): wire.ListOffsetsPartitionResponse => ({
      partition,
      ...NO_ERROR,
      timestamp: toInt64String(timestamp),
      offset: toInt64String(offset),
      leader_epoch: replica.leaderEpoch,
    })
    if (ts === LATEST) return ok(replica.highWatermark, -1n)
    if (ts === EARLIEST) return ok(replica.logStartOffset, -1n)
    if (ts === MAX_TIMESTAMP)
      return fail(errorFields('UNSUPPORTED_VERSION', 'the max-timestamp lookup (-3) is not supported yet'))
    if (ts < 0n) return fail(errorFields('INVALID_REQUEST', `timestamp ${ts} is neither a time nor -1, -2 or -3`))
    const found = await replica.log.offsetForTimestamp(ts)
    if (found === undefined || found.offset >= replica.highWatermark) return ok(-1n, -1n)
    return ok(found.offset, found.timestamp)
  } catch (err) {
    return fail(errorFieldsFrom(err, ctx.logger, { topic, partition, rpc: 'ListOffsets' }))
  }
}
