/**
 * FindCoordinator 0-4: every broker forwards group requests to the group coordinator in the
 * metadata service, so for a group key the coordinator a Kafka client should talk to is the
 * broker it asked. Transactions do not exist in Sluice yet, so a transaction key gets a clear
 * refusal instead of a coordinator a client would then fail against.
 */
import { errorId, kafka } from '@sluice/protocol'
import type { KafkaApiHandler, KafkaRequestContext } from '../kafka-api-handler.js'

const GROUP_KEY = 0
const TRANSACTION_KEY = 1

type Coordinator = kafka.FindCoordinatorResponseCoordinatorInput

function coordinatorFor(key: string, keyType: number, ctx: KafkaRequestContext): Coordinator {
  if (keyType === GROUP_KEY)
    return {
      key,
      nodeId: ctx.listener.brokerId,
      host: ctx.listener.host,
      port: ctx.listener.port,
      errorCode: 0,
      errorMessage: null,
    }
  const refusal =
    keyType === TRANSACTION_KEY
      ? { errorCode: errorId('UNSUPPORTED_VERSION'), errorMessage: 'Sluice does not support transactions' }
      : { errorCode: errorId('INVALID_REQUEST'), errorMessage: `unknown coordinator key type ${keyType}` }
  return { key, nodeId: -1, host: '', port: -1, ...refusal }
}

export const findCoordinatorHandler: KafkaApiHandler<kafka.FindCoordinatorRequest, kafka.FindCoordinatorResponseInput> =
  {
    codec: kafka.FindCoordinatorApi,
    minVersion: 0,
    maxVersion: 4,
    async handle(req, version, ctx) {
      // v4 batches keys (KIP-699); before it one key travels in `key` and the answer is flat.
      if (version >= 4) return { coordinators: req.coordinatorKeys.map((k) => coordinatorFor(k, req.keyType, ctx)) }
      const c = coordinatorFor(req.key, req.keyType, ctx)
      return { errorCode: c.errorCode, errorMessage: c.errorMessage, nodeId: c.nodeId, host: c.host, port: c.port }
    },
  }
