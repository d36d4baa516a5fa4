/**
 * Kafka OffsetForLeaderEpoch v2-4: for each partition, the end offset of the requested leader
 * epoch, which consumers use to detect a truncated log after a leader change (KIP-320). There is
 * no gRPC counterpart (Sluice followers learn divergence inside the fetch), so this is the
 * operation itself, made of the shared pieces: the leader check (leaderReplica), the
 * currentLeaderEpoch check (leaderEpochMismatch) and the log's leader-epoch cache lookup
 * (PartitionLog.endOffsetForEpoch, the one follower divergence uses): the largest epoch at or
 * below the requested one and where it ended, the log end offset for the current epoch, and
 * epoch -1 / offset -1 when the cache knows no such epoch.
 */
import { kafka } from '@sluice/protocol'
import {
  errorFieldsFrom,
  leaderEpochMismatch,
  leaderReplica,
  type BrokerContext,
  type ErrorFields,
} from '../../server/context.js'
import type { KafkaApiHandler } from '../kafka-api-handler.js'
import { kafkaErrorCode } from '../kafka-error-code.js'

type Answer = kafka.OffsetForLeaderEpochResponseEpochEndOffsetInput

export const offsetForLeaderEpochHandler: KafkaApiHandler<
  kafka.OffsetForLeaderEpochRequest,
  kafka.OffsetForLeaderEpochResponseInput
> = {
  codec: kafka.OffsetForLeaderEpochApi,
  minVersion: 2,
  maxVersion: 4,
  async handle(req, _version, ctx) {
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({
        topic: t.topic,
        partitions: t.partitions.map((p) => epochEndOffset(ctx.broker, t.topic, p)),
      })),
    }
  },
}

function epochEndOffset(
  ctx: BrokerContext,
  topic: string,
  p: kafka.OffsetForLeaderEpochRequestOffsetForLeaderPartition,
): Answer {
  const partition = p.partition
  const fail = (f: ErrorFields): Answer => ({
    errorCode: kafkaErrorCode(f.error_code),
    partition,
    leaderEpoch: -1,
    endOffset: -1n,
  })
  try {
    const replica = leaderReplica(ctx, topic, partition)
    if ('error_code' in replica) return fail(replica)
    const epochError = leaderEpochMismatch(replica, p.currentLeaderEpoch)
    if (epochError !== undefined) return fail(epochError)
    const found = replica.log.endOffsetForEpoch(p.leaderEpoch)
    return { errorCode: 0, partition, leaderEpoch: found.epoch, endOffset: found.endOffset }
  } catch (err) {
    return fail(errorFieldsFrom(err, ctx.logger, { topic, partition, rpc: 'OffsetForLeaderEpoch' }))
  }
}
