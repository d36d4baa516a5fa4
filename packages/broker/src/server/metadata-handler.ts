/**
 * Metadata and DeleteRecords (proto/sluice/v1/broker.proto). Metadata is answered from the
 * broker's metadata cache.
 * DeleteRecords (Kafka api 21) runs on the partition leader: offset -1 means the high watermark;
 * an offset above the high watermark (or below -1) is OFFSET_OUT_OF_RANGE; otherwise the log
 * start offset moves up to it (never down), whole segments below it are deleted and the new start
 * is checkpointed. Followers learn the new start from the leader's fetch responses and report
 * their own in their fetch requests; the answer waits (Partition.deleteRecords, the acks=all
 * waiter mechanism) until every follower in the ISR moved there too, and low_watermark reports
 * the smallest start among them. REQUEST_TIMED_OUT after the request's timeout_ms. Errors are per
 * partition; the call itself never fails.
 */
import { toBigInt, toInt64String, type wire } from '@sluice/protocol'
import {
  errorFields,
  errorFieldsFrom,
  leaderReplica,
  NO_ERROR,
  type BrokerContext,
  type ErrorFields,
} from './context.js'

/** Kafka's admin default (request.timeout.ms) when a request carries no timeout. */
const DEFAULT_TIMEOUT_MS = 30_000

export function handleMetadata(ctx: BrokerContext, req: wire.MetadataRequest__Output): wire.MetadataResponse {
  return ctx.cache.metadataResponse(req)
}

export async function handleDeleteRecords(
  ctx: BrokerContext,
  req: wire.DeleteRecordsRequest__Output,
): Promise<wire.DeleteRecordsResponse> {
  const timeoutMs = req.timeout_ms > 0 ? req.timeout_ms : DEFAULT_TIMEOUT_MS
  const topics = await Promise.all(
    req.topics.map(async (t) => ({
      topic: t.topic,
      partitions: await Promise.all(t.partitions.map((p) => deletePartition(ctx, t.topic, p, timeoutMs))),
    })),
  )
  return { topics }
}

async function deletePartition(
  ctx: BrokerContext,
  topic: string,
  p: wire.DeleteRecordsPartition__Output,
  timeoutMs: number,
): Promise<wire.DeleteRecordsPartitionResponse> {
  const partition = p.partition
  const fail = (f: ErrorFields): wire.DeleteRecordsPartitionResponse => ({ partition, ...f, low_watermark: '-1' })
  try {
    const replica = leaderReplica(ctx, topic, partition)
    if ('error_code' in replica) return fail(replica)
    const requested = toBigInt(p.offset)
    const hw = replica.highWatermark
    if (requested < -1n || requested > hw) {
      return fail(
        errorFields(
          'OFFSET_OUT_OF_RANGE',
          `offset ${requested} is outside [0, ${hw}] (the high watermark), or -1 for the high watermark`,
        ),
      )
    }
    const low = await replica.deleteRecords(requested === -1n ? hw : requested, timeoutMs)
    return { partition, ...NO_ERROR, low_watermark: toInt64String(low) }
  } catch (err) {
    return fail(errorFieldsFrom(err, ctx.logger, { topic, partition, rpc: 'DeleteRecords' }))
  }
}
