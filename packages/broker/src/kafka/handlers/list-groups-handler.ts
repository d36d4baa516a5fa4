/** ListGroups 0-4, forwarded to the group coordinator (v4 filters by state, KIP-518). */
import { kafka, type wire } from '@sluice/protocol'
import type { KafkaApiHandler } from '../kafka-api-handler.js'
import { failureOf, groupErrorCode, toCoordinator } from './forwarded-call.js'

export const listGroupsHandler: KafkaApiHandler<kafka.ListGroupsRequest, kafka.ListGroupsResponseInput> = {
  codec: kafka.ListGroupsApi,
  minVersion: 0,
  maxVersion: 4,
  async handle(req, _version, ctx) {
    const grpcReq: wire.ListGroupsRequest = { states: req.statesFilter }
    try {
      const res = await toCoordinator<wire.ListGroupsResponse__Output>(ctx, (c, o, cb) => c.ListGroups(grpcReq, o, cb))
      return {
        errorCode: groupErrorCode(res.error_code),
        groups: res.groups.map((g) => ({ groupId: g.group_id, protocolType: g.protocol_type, groupState: g.state })),
      }
    } catch (err) {
      return { errorCode: failureOf(ctx, err, 'COORDINATOR_NOT_AVAILABLE', groupErrorCode).errorCode, groups: [] }
    }
  },
}
