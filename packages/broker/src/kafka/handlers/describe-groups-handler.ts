/**
 * DescribeGroups 0-5, forwarded to the group coordinator: the same members, assignments and
 * state the SDK's admin describe shows. A group the coordinator does not know is answered as
 * Kafka answers it up to v5: no error, state Dead, no members (GROUP_ID_NOT_FOUND is v6's).
 */
import { errorId, kafka, type wire } from '@sluice/protocol'
import type { KafkaApiHandler } from '../kafka-api-handler.js'
import { bufferFromWire } from '../wire-values.js'
import { failureOf, groupErrorCode, nullIfEmpty, toCoordinator } from './forwarded-call.js'

/** Kafka's "authorized operations not asked for" (Integer.MIN_VALUE); Sluice has no ACLs. */
const NO_AUTHORIZED_OPERATIONS = -2147483648
const GROUP_ID_NOT_FOUND = errorId('GROUP_ID_NOT_FOUND')

type Described = kafka.DescribeGroupsResponseDescribedGroupInput

function deadGroup(groupId: string, errorCode: number): Described {
  return {
    errorCode,
    groupId,
    groupState: 'Dead',
    protocolType: '',
    protocolData: '',
    members: [],
    authorizedOperations: NO_AUTHORIZED_OPERATIONS,
  }
}

function described(g: wire.DescribedGroup__Output): Described {
  if (g.error_code === GROUP_ID_NOT_FOUND) return deadGroup(g.group_id, 0)
  if (g.error_code !== 0) return deadGroup(g.group_id, groupErrorCode(g.error_code))
  return {
    errorCode: 0,
    groupId: g.group_id,
    groupState: g.state,
    protocolType: g.protocol_type,
    protocolData: g.protocol_name,
    members: g.members.map((m) => ({
      memberId: m.member_id,
      groupInstanceId: nullIfEmpty(m.group_instance_id),
      clientId: m.client_id,
      clientHost: m.client_host,
      memberMetadata: bufferFromWire(m.metadata),
      memberAssignment: bufferFromWire(m.assignment),
    })),
    authorizedOperations: NO_AUTHORIZED_OPERATIONS,
  }
}

export const describeGroupsHandler: KafkaApiHandler<kafka.DescribeGroupsRequest, kafka.DescribeGroupsResponseInput> = {
  codec: kafka.DescribeGroupsApi,
  minVersion: 0,
  maxVersion: 5,
  async handle(req, _version, ctx) {
    if (req.groups.length === 0) return { groups: [] }
    const grpcReq: wire.DescribeGroupsRequest = { group_ids: req.groups }
    try {
      const res = await toCoordinator<wire.DescribeGroupsResponse__Output>(ctx, (c, o, cb) =>
        c.DescribeGroups(grpcReq, o, cb),
      )
      const byId = new Map(res.groups.map((g) => [g.group_id, g]))
      return {
        groups: req.groups.map((id) => {
          const g = byId.get(id)
          return g === undefined ? deadGroup(id, errorId('UNKNOWN_SERVER_ERROR')) : described(g)
        }),
      }
    } catch (err) {
      const code = failureOf(ctx, err, 'COORDINATOR_NOT_AVAILABLE', groupErrorCode).errorCode
      return { groups: req.groups.map((id) => deadGroup(id, code)) }
    }
  },
}
