/**
 * OffsetCommit 2-8, forwarded to the group coordinator, which writes the same __consumer_offsets
 * records as for the SDK. Every partition asked about gets an answer: a group-level refusal (an
 * unknown member, a stale generation) or a failed call becomes every partition's error, which is
 * how Kafka reports them.
 *
 * The retention time of v2-4 is accepted and not applied: committed offsets expire by the
 * coordinator's offsets.retention setting, as in Kafka since v5 dropped the field (KIP-211).
 */
import { kafka, type wire } from '@sluice/protocol'
import type { KafkaApiHandler } from '../kafka-api-handler.js'
import { int64ToWire } from '../wire-values.js'
import { failureOf, groupErrorCode, toCoordinator } from './forwarded-call.js'

type Answer = kafka.OffsetCommitResponseInput

/** The answer for every partition of the request, each with the code `codeOf` gives it. */
function answerEach(req: kafka.OffsetCommitRequest, codeOf: (topic: string, partition: number) => number): Answer {
  return {
    topics: req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({
        partitionIndex: p.partitionIndex,
        errorCode: codeOf(t.name, p.partitionIndex),
      })),
    })),
  }
}

export const offsetCommitHandler: KafkaApiHandler<kafka.OffsetCommitRequest, kafka.OffsetCommitResponseInput> = {
  codec: kafka.OffsetCommitApi,
  minVersion: 2,
  maxVersion: 8,
  async handle(req, _version, ctx) {
    const grpcReq: wire.OffsetCommitRequest = {
      group_id: req.groupId,
      generation_id: req.generationIdOrMemberEpoch,
      member_id: req.memberId,
      group_instance_id: req.groupInstanceId ?? '',
      topics: req.topics.map((t) => ({
        topic: t.name,
        partitions: t.partitions.map((p) => ({
          partition: p.partitionIndex,
          committed_offset: int64ToWire(p.committedOffset),
          committed_leader_epoch: p.committedLeaderEpoch,
          metadata: p.committedMetadata ?? '',
        })),
      })),
    }
    let res: wire.OffsetCommitResponse__Output
    try {
      res = await toCoordinator<wire.OffsetCommitResponse__Output>(ctx, (c, o, cb) => c.OffsetCommit(grpcReq, o, cb))
    } catch (err) {
      const code = failureOf(ctx, err, 'COORDINATOR_NOT_AVAILABLE', groupErrorCode).errorCode
      return answerEach(req, () => code)
    }
    if (res.error_code !== 0) {
      const code = groupErrorCode(res.error_code)
      return answerEach(req, () => code)
    }
    const codes = new Map<string, number>()
    for (const t of res.topics)
      for (const p of t.partitions) codes.set(`${t.topic}\u0000${p.partition}`, groupErrorCode(p.error_code))
    // A partition the coordinator left out was not committed: say so rather than claim success.
    const missing = groupErrorCode(-1)
    return answerEach(req, (topic, partition) => codes.get(`${topic}\u0000${partition}`) ?? missing)
  },
}
