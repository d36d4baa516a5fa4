import { describe, expect, it } from 'vitest'
import { ErrorCode, SluiceError, errorNameFromId, type ErrorCodeName } from './errors.js'
import { fromGrpcError, toGrpcError } from './grpc-status.js'

describe('error table', () => {
  it('has unique ids', () => {
    const ids = Object.values(ErrorCode).map((s) => s.id)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('uses Kafka ids where Kafka has the error', () => {
    const kafka: Partial<Record<ErrorCodeName, number>> = {
      OFFSET_OUT_OF_RANGE: 1,
      CORRUPT_MESSAGE: 2,
      UNKNOWN_TOPIC_OR_PARTITION: 3,
      NOT_LEADER_OR_FOLLOWER: 6,
      MESSAGE_TOO_LARGE: 10,
      INVALID_TOPIC_EXCEPTION: 17,
      NOT_ENOUGH_REPLICAS: 19,
      NOT_ENOUGH_REPLICAS_AFTER_APPEND: 20,
      TOPIC_ALREADY_EXISTS: 36,
      OUT_OF_ORDER_SEQUENCE_NUMBER: 45,
      FENCED_LEADER_EPOCH: 74,
      MEMBER_ID_REQUIRED: 79,
    }
    for (const [name, id] of Object.entries(kafka)) expect(ErrorCode[name as ErrorCodeName].id).toBe(id)
  })

  it('maps an unknown id to UNKNOWN_SERVER_ERROR instead of throwing', () => {
    expect(errorNameFromId(99999)).toBe('UNKNOWN_SERVER_ERROR')
    const e = SluiceError.fromId(99999, 'boom')
    expect(e.code).toBe('UNKNOWN_SERVER_ERROR')
    expect(e.details).toMatchObject({ unknownErrorId: 99999 })
  })

  it('round-trips a typed error through a gRPC status', () => {
    const original = new SluiceError('NOT_LEADER_OR_FOLLOWER', 'broker 2 is not the leader of t-0')
    const status = toGrpcError(original)
    const back = fromGrpcError({ ...status, message: status.details })
    expect(back.code).toBe('NOT_LEADER_OR_FOLLOWER')
    expect(back.retriable).toBe(true)
    expect(back.message).toBe('broker 2 is not the leader of t-0')
  })
})
