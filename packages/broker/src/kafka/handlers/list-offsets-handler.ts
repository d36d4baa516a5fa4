/**
 * Kafka ListOffsets v1-7 over the broker's list-offsets operation (server/list-offsets-handler.ts):
 * latest (-1), earliest (-2), max timestamp (-3) and lookups by time, the leader and
 * currentLeaderEpoch (v4+) checks are the operation's. read_committed (v2+) needs nothing of its
 * own: without transactions the last stable offset is the high watermark, which is what latest
 * answers already.
 */
import { kafka, type wire } from '@sluice/protocol'
import { handleListOffsets } from '../../server/list-offsets-handler.js'
import type { KafkaApiHandler } from '../kafka-api-handler.js'
import { kafkaErrorCode } from '../kafka-error-code.js'
import { int64FromWire, int64ToWire } from '../wire-values.js'

export const listOffsetsHandler: KafkaApiHandler<kafka.ListOffsetsRequest, kafka.ListOffsetsResponseInput> = {
  codec: kafka.ListOffsetsApi,
  minVersion: 1,
  maxVersion: 7,
  async handle(req, _version, ctx) {
    const res = await handleListOffsets(ctx.broker, toWireListOffsets(req))
    return { throttleTimeMs: 0, topics: toKafkaTopics(res) }
  },
}

function toWireListOffsets(req: kafka.ListOffsetsRequest): wire.ListOffsetsRequest__Output {
  return {
    replica_id: req.replicaId,
    isolation_level: req.isolationLevel,
    topics: req.topics.map((t) => ({
      topic: t.name,
      partitions: t.partitions.map((p) => ({
        partition: p.partitionIndex,
        timestamp: int64ToWire(p.timestamp),
        current_leader_epoch: p.currentLeaderEpoch,
      })),
    })),
  }
}

function toKafkaTopics(res: wire.ListOffsetsResponse): kafka.ListOffsetsResponseListOffsetsTopicResponseInput[] {
  return (res.topics ?? []).map((t) => ({
    name: t.topic ?? '',
    partitions: (t.partitions ?? []).map((p) => ({
      partitionIndex: p.partition ?? 0,
      errorCode: kafkaErrorCode(p.error_code),
      timestamp: int64FromWire(p.timestamp),
      offset: int64FromWire(p.offset),
      leaderEpoch: p.leader_epoch ?? -1,
    })),
  }))
}
