/**
 * InitProducerId 0-4, forwarded to the controller, which hands out producer ids for idempotent
 * producers. As in Kafka, a request without a transactional id always gets a new producer id:
 * the producer id and epoch it carries (v3+, which @platformatic/kafka sends as 0/0) are
 * ignored, since only a transactional producer may bump its epoch. Sluice has no transactions: a
 * transactional id is refused with UNSUPPORTED_VERSION, which a Kafka client reports at once
 * rather than retrying.
 */
import { errorId, kafka, type wire } from '@sluice/protocol'
import type { KafkaApiHandler } from '../kafka-api-handler.js'
import { kafkaErrorCode } from '../kafka-error-code.js'
import { int64FromWire, int64ToWire } from '../wire-values.js'
import { failureOf, toController } from './forwarded-call.js'

export const initProducerIdHandler: KafkaApiHandler<kafka.InitProducerIdRequest, kafka.InitProducerIdResponseInput> = {
  codec: kafka.InitProducerIdApi,
  minVersion: 0,
  maxVersion: 4,
  async handle(req, _version, ctx) {
    const refuse = (errorCode: number): kafka.InitProducerIdResponseInput => ({
      throttleTimeMs: 0,
      errorCode,
      producerId: -1n,
      producerEpoch: -1,
    })
    if (req.transactionalId !== null) return refuse(errorId('UNSUPPORTED_VERSION'))
    const grpcReq: wire.InitProducerIdRequest = {
      transactional_id: '',
      transaction_timeout_ms: req.transactionTimeoutMs,
      producer_id: int64ToWire(-1n),
      producer_epoch: -1,
    }
    try {
      const res = await toController<wire.InitProducerIdResponse__Output>(ctx, (c, o, cb) =>
        c.InitProducerId(grpcReq, o, cb),
      )
      if (res.error_code !== 0) return refuse(kafkaErrorCode(res.error_code))
      return {
        throttleTimeMs: 0,
        errorCode: 0,
        producerId: int64FromWire(res.producer_id),
        producerEpoch: res.producer_epoch,
      }
    } catch (err) {
      return refuse(failureOf(ctx, err, 'COORDINATOR_NOT_AVAILABLE').errorCode)
    }
  },
}
