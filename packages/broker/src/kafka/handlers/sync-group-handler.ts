/**
 * SyncGroup 0-5, forwarded to the group coordinator. A follower's call waits for the leader's
 * assignment, so its deadline is the rebalance timeout the member joined with plus a margin.
 */
import { kafka, type wire } from '@sluice/protocol'
import type { KafkaApiHandler } from '../kafka-api-handler.js'
import { LONG_POLL_MARGIN_MS } from '../metadata-forwarder.js'
import { bufferFromWire } from '../wire-values.js'
import { failureOf, groupErrorCode, nullIfEmpty, toCoordinator } from './forwarded-call.js'
import { rebalanceTimeoutOf } from './rebalance-timeouts.js'

const NO_ASSIGNMENT = Buffer.alloc(0)

export const syncGroupHandler: KafkaApiHandler<kafka.SyncGroupRequest, kafka.SyncGroupResponseInput> = {
  codec: kafka.SyncGroupApi,
  minVersion: 0,
  maxVersion: 5,
  async handle(req, _version, ctx) {
    const grpcReq: wire.SyncGroupRequest = {
      group_id: req.groupId,
      generation_id: req.generationId,
      member_id: req.memberId,
      group_instance_id: req.groupInstanceId ?? '',
      protocol_type: req.protocolType ?? '',
      protocol_name: req.protocolName ?? '',
      assignments: req.assignments.map((a) => ({ member_id: a.memberId, assignment: a.assignment })),
    }
    const timeoutMs = rebalanceTimeoutOf(ctx.broker, req.groupId, req.memberId) + LONG_POLL_MARGIN_MS
    try {
      const res = await toCoordinator<wire.SyncGroupResponse__Output>(
        ctx,
        (c, o, cb) => c.SyncGroup(grpcReq, o, cb),
        timeoutMs,
      )
      return {
        errorCode: groupErrorCode(res.error_code),
        protocolType: nullIfEmpty(res.protocol_type),
        protocolName: nullIfEmpty(res.protocol_name),
        assignment: bufferFromWire(res.assignment),
      }
    } catch (err) {
      const f = failureOf(ctx, err, 'COORDINATOR_NOT_AVAILABLE', groupErrorCode)
      return { errorCode: f.errorCode, protocolType: null, protocolName: null, assignment: NO_ASSIGNMENT }
    }
  },
}
