import { describe, expect, it } from 'vitest'
import { ErrorCode, errorId, type ErrorCodeName } from '../errors.js'
import { kafkaErrorCode, sluiceErrorFromKafka } from './kafka-error-code.js'

describe('kafkaErrorCode', () => {
  it("passes Kafka's own ids through", () => {
    for (const name of [
      'NONE',
      'UNKNOWN_SERVER_ERROR',
      'NOT_LEADER_OR_FOLLOWER',
      'OUT_OF_ORDER_SEQUENCE_NUMBER',
    ] as const) {
      expect(kafkaErrorCode(errorId(name))).toBe(errorId(name))
    }
    expect(kafkaErrorCode(undefined)).toBe(0)
  })

  it('turns every Sluice-only id into a Kafka id', () => {
    const sluiceOnly = (Object.keys(ErrorCode) as ErrorCodeName[]).filter((n) => ErrorCode[n].id >= 10_000)
    expect(sluiceOnly.length).toBeGreaterThan(0)
    for (const name of sluiceOnly) expect(kafkaErrorCode(errorId(name))).toBeLessThan(10_000)
    expect(kafkaErrorCode(errorId('INVALID_BATCH'))).toBe(errorId('CORRUPT_MESSAGE'))
    expect(kafkaErrorCode(errorId('INTERNAL_ERROR'))).toBe(errorId('UNKNOWN_SERVER_ERROR'))
    expect(kafkaErrorCode(12_345)).toBe(errorId('UNKNOWN_SERVER_ERROR'))
  })

  it('reads Kafka codes back as the SluiceErrors of the same name, retriability included', () => {
    const notLeader = sluiceErrorFromKafka(errorId('NOT_LEADER_OR_FOLLOWER'), null, { topic: 't' })
    expect(notLeader.code).toBe('NOT_LEADER_OR_FOLLOWER')
    expect(notLeader.retriable).toBe(true)
    expect(notLeader.details).toEqual({ topic: 't' })
    const corrupt = sluiceErrorFromKafka(kafkaErrorCode(errorId('INVALID_BATCH')), 'bad crc')
    expect(corrupt.code).toBe('CORRUPT_MESSAGE')
    expect(corrupt.message).toContain('bad crc')
    const unknown = sluiceErrorFromKafka(9_999)
    expect(unknown.code).toBe('UNKNOWN_SERVER_ERROR')
    expect(unknown.details).toEqual({ unknownErrorId: 9_999 })
  })
})
