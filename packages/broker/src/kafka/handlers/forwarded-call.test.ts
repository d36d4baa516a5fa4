import { describe, expect, it } from 'vitest'
import { errorId } from '@sluice/protocol'
import { clientHostOf, groupErrorCode } from './forwarded-call.js'

describe('clientHostOf', () => {
  it('takes the remote host of a Kafka-style connection id', () => {
    expect(clientHostOf('127.0.0.1:9092-10.1.2.3:51234-7')).toBe('10.1.2.3')
    expect(clientHostOf('::1:9092-::1:51234-0')).toBe('::1')
    expect(clientHostOf('opaque')).toBe('')
  })
})

describe('groupErrorCode', () => {
  it('keeps Kafka ids and maps Sluice-only ones to the Kafka error a client recovers from', () => {
    expect(groupErrorCode(0)).toBe(0)
    expect(groupErrorCode(errorId('REBALANCE_IN_PROGRESS'))).toBe(27)
    expect(groupErrorCode(errorId('PARTITION_NOT_ASSIGNED'))).toBe(errorId('ILLEGAL_GENERATION'))
    expect(groupErrorCode(errorId('METADATA_UNAVAILABLE'))).toBe(errorId('COORDINATOR_NOT_AVAILABLE'))
    expect(groupErrorCode(errorId('INTERNAL_ERROR'))).toBe(-1)
  })
})
