/**
 * DeleteGroups 0-2, forwarded to the group coordinator: only groups without members go, with
 * every committed offset (NON_EMPTY_GROUP otherwise).
 */
import { kafka, type wire } from '@sluice/protocol'
import type { KafkaApiHandler } from '../kafka-api-handler.js'
import { failureOf, groupErrorCode, toCoordinator } from './forwarded-call.js'

export const deleteGroupsHandler: KafkaApiHandler<kafka.DeleteGroupsRequest, kafka.DeleteGroupsResponseInput> = {
  codec: kafka.DeleteGroupsApi,
  minVersion: 0,
  maxVersion: 2,
  async handle(req, _version, ctx) {
    if (req.groupsNames.length === 0) return { throttleTimeMs: 0, results: [] }
    const grpcReq: wire.DeleteGroupsRequest = { group_ids: req.groupsNames }
    try {
      const res = await toCoordinator<wire.DeleteGroupsResponse__Output>(ctx, (c, o, cb) =>
        c.DeleteGroups(grpcReq, o, cb),
      )
      return {
        throttleTimeMs: 0,
        results: res.results.map((r) => ({ groupId: r.group_id, errorCode: groupErrorCode(r.error_code) })),
      }
    } catch (err) {
      const code = failureOf(ctx, err, 'COORDINATOR_NOT_AVAILABLE', groupErrorCode).errorCode
      return { throttleTimeMs: 0, results: req.groupsNames.map((groupId) => ({ groupId, errorCode: code })) }
    }
  },
}
