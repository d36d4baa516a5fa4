/** Heartbeat 0-4, forwarded to the group coordinator. */
import { kafka, type wire } from '@sluice/protocol'
import type { KafkaApiHandler } from '../kafka-api-handler.js'
import { failureOf, groupErrorCode, toCoordinator } from './forwarded-call.js'

export const heartbeatHandler: KafkaApiHandler<kafka.HeartbeatRequest, kafka.HeartbeatResponseInput> = {
  codec: kafka.HeartbeatApi,
  minVersion: 0,
  maxVersion: 4,
  async handle(req, _version, ctx) {
    const grpcReq: wire.HeartbeatRequest = {
      group_id: req.groupId,
      generation_id: req.generationId,
      member_id: req.memberId,
      group_instance_id: req.groupInstanceId ?? '',
    }
    try {
      const res = await toCoordinator<wire.HeartbeatResponse__Output>(ctx, (c, o, cb) => c.Heartbeat(grpcReq, o, cb))
      return { errorCode: groupErrorCode(res.error_code) }
    } catch (err) {
      return { errorCode: failureOf(ctx, err, 'COORDINATOR_NOT_AVAILABLE', groupErrorCode).errorCode }
    }
  },
}
