/**
 * LeaveGroup 0-4, forwarded to the group coordinator. Before v3 one member leaves and the answer
 * has only a top-level error, which then carries that member's error; from v3 on (KIP-345) a
 * batch of members leaves, each with its own error.
 */
import { kafka, type wire } from '@sluice/protocol'
import type { KafkaApiHandler } from '../kafka-api-handler.js'
import { failureOf, groupErrorCode, nullIfEmpty, toCoordinator } from './forwarded-call.js'
import { forgetMember } from './rebalance-timeouts.js'

export const leaveGroupHandler: KafkaApiHandler<kafka.LeaveGroupRequest, kafka.LeaveGroupResponseInput> = {
  codec: kafka.LeaveGroupApi,
  minVersion: 0,
  maxVersion: 4,
  async handle(req, version, ctx) {
    const leaving =
      version >= 3
        ? req.members.map((m) => ({
            member_id: m.memberId,
            group_instance_id: m.groupInstanceId ?? '',
            reason: m.reason ?? '',
          }))
        : [{ member_id: req.memberId, group_instance_id: '', reason: '' }]
    const grpcReq: wire.LeaveGroupRequest = { group_id: req.groupId, members: leaving }
    let res: wire.LeaveGroupResponse__Output
    try {
      res = await toCoordinator<wire.LeaveGroupResponse__Output>(ctx, (c, o, cb) => c.LeaveGroup(grpcReq, o, cb))
    } catch (err) {
      return { errorCode: failureOf(ctx, err, 'COORDINATOR_NOT_AVAILABLE', groupErrorCode).errorCode, members: [] }
    }
    for (const m of res.members) if (m.error_code === 0) forgetMember(ctx.broker, req.groupId, m.member_id)
    const members = res.members.map((m) => ({
      memberId: m.member_id,
      groupInstanceId: nullIfEmpty(m.group_instance_id),
      errorCode: groupErrorCode(m.error_code),
    }))
    if (version >= 3) return { errorCode: groupErrorCode(res.error_code), members }
    const memberError = members.find((m) => m.errorCode !== 0)?.errorCode ?? 0
    return { errorCode: res.error_code !== 0 ? groupErrorCode(res.error_code) : memberError }
  },
}
