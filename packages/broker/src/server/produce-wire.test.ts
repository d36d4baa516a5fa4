import { errorId } from '@sluice/protocol'
import { describe, expect, it } from 'vitest'
import { producePartitionAnswer } from './produce-types.js'
import { produceAnswerToWire, produceAskFromWire } from './produce-wire.js'

describe('the gRPC edge of the produce operation', () => {
  it("reads the proto's request as the operation's ask: '' is no transactional id", () => {
    const records = Buffer.from('batches')
    const ask = produceAskFromWire({
      correlation_id: '7',
      acks: -1,
      timeout_ms: 1500,
      client_id: 'c',
      transactional_id: '',
      topics: [{ topic: 't', partitions: [{ partition: 3, records }] }],
    })
    expect(ask).toEqual({
      acks: -1,
      timeoutMs: 1500,
      transactionalId: null,
      topicData: [{ name: 't', partitionData: [{ index: 3, records }] }],
    })
    expect(produceAskFromWire({ ...minimal(), transactional_id: 'tx' }).transactionalId).toBe('tx')
  })

  it("writes the operation's bigints as the proto's decimal strings, beyond 2^53 too", () => {
    const big = 2n ** 60n + 1n
    const wire = produceAnswerToWire('9', {
      topics: [
        {
          topic: 't',
          partitions: [
            producePartitionAnswer(0, { error_code: 0, error_message: '' }, big, -1n, 5n),
            producePartitionAnswer(1, { error_code: errorId('NOT_LEADER_OR_FOLLOWER'), error_message: 'moved' }),
          ],
        },
      ],
    })
    expect(wire).toEqual({
      correlation_id: '9',
      throttle_time_ms: 0,
      topics: [
        {
          topic: 't',
          partitions: [
            {
              partition: 0,
              error_code: 0,
              error_message: '',
              base_offset: '1152921504606846977',
              log_append_time_ms: '-1',
              log_start_offset: '5',
            },
            {
              partition: 1,
              error_code: errorId('NOT_LEADER_OR_FOLLOWER'),
              error_message: 'moved',
              base_offset: '-1',
              log_append_time_ms: '-1',
              log_start_offset: '-1',
            },
          ],
        },
      ],
    })
  })
})

function minimal() {
  return { correlation_id: '1', acks: 1, timeout_ms: 0, client_id: '', transactional_id: '', topics: [] }
}
