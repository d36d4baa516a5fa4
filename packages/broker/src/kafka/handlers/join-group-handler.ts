/**
 * JoinGroup 0-7, forwarded to the group coordinator. The call long-polls until the rebalance
 * completes, so its deadline is the member's rebalance timeout plus a margin.
 *
 * Versions before 4 predate KIP-394: such a client cannot handle MEMBER_ID_REQUIRED, so this
 * handler rejoins at once with the member id the coordinator handed out and answers with the
 * outcome of that second join, as Kafka's coordinator does for those versions.
 */
import { errorId, kafka, type wire } from '@sluice/protocol'
import type { KafkaApiHandler, KafkaRequestContext } from '../kafka-api-handler.js'
import { LONG_POLL_MARGIN_MS } from '../metadata-forwarder.js'
import { bufferFromWire } from '../wire-values.js'
import { clientHostOf, failureOf, groupErrorCode, nullIfEmpty, toCoordinator } from './forwarded-call.js'
import { rememberRebalanceTimeout } from './rebalance-timeouts.js'

const MEMBER_ID_REQUIRED = errorId('MEMBER_ID_REQUIRED')

function joinCall(
  ctx: KafkaRequestContext,
  req: wire.JoinGroupRequest,
  timeoutMs: number,
): Promise<wire.JoinGroupResponse__Output> {
  return toCoordinator<wire.JoinGroupResponse__Output>(ctx, (c, o, cb) => c.JoinGroup(req, o, cb), timeoutMs)
}

export const joinGroupHandler: KafkaApiHandler<kafka.JoinGroupRequest, kafka.JoinGroupResponseInput> = {
  codec: kafka.JoinGroupApi,
  minVersion: 0,
  maxVersion: 7,
  async handle(req, version, ctx) {
    // v0 has no rebalance timeout: the session timeout is both (Kafka's rule for v0).
    const rebalanceTimeoutMs =
      version >= 1 && req.rebalanceTimeoutMs >= 0 ? req.rebalanceTimeoutMs : req.sessionTimeoutMs
    const grpcReq: wire.JoinGroupRequest = {
      group_id: req.groupId,
      session_timeout_ms: req.sessionTimeoutMs,
      rebalance_timeout_ms: rebalanceTimeoutMs,
      member_id: req.memberId,
      group_instance_id: req.groupInstanceId ?? '',
      protocol_type: req.protocolType,
      protocols: req.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
      client_id: ctx.clientId ?? '',
      client_host: clientHostOf(ctx.connectionId),
    }
    const timeoutMs = Math.max(rebalanceTimeoutMs, req.sessionTimeoutMs, 0) + LONG_POLL_MARGIN_MS
    let res: wire.JoinGroupResponse__Output
    try {
      res = await joinCall(ctx, grpcReq, timeoutMs)
      if (version < 4 && res.error_code === MEMBER_ID_REQUIRED && res.member_id !== '')
        res = await joinCall(ctx, { ...grpcReq, member_id: res.member_id }, timeoutMs)
    } catch (err) {
      const f = failureOf(ctx, err, 'COORDINATOR_NOT_AVAILABLE', groupErrorCode)
      return {
        errorCode: f.errorCode,
        generationId: -1,
        protocolType: null,
        protocolName: version >= 7 ? null : '',
        leader: '',
        memberId: req.memberId,
        members: [],
      }
    }
    if (res.member_id !== '') rememberRebalanceTimeout(ctx.broker, req.groupId, res.member_id, rebalanceTimeoutMs)
    return {
      errorCode: groupErrorCode(res.error_code),
      generationId: res.error_code === 0 ? res.generation_id : -1,
      protocolType: nullIfEmpty(res.protocol_type),
      // Nullable only from v7 on; before, an absent name is the empty string.
      protocolName: version >= 7 ? nullIfEmpty(res.protocol_name) : res.protocol_name,
      leader: res.leader,
      memberId: res.member_id !== '' ? res.member_id : req.memberId,
      members: res.members.map((m) => ({
        memberId: m.member_id,
        groupInstanceId: nullIfEmpty(m.group_instance_id),
        metadata: bufferFromWire(m.metadata),
      })),
    }
  },
}
