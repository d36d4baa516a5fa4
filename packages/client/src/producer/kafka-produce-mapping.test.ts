import { describe, expect, it } from 'vitest'
import {
  ErrorCode,
  SluiceError,
  encodeRecordBatch,
  errorId,
  frameBatchAt,
  kafka,
  kafkaErrorCode,
  type ErrorCodeName,
} from '@sluice/protocol'
import { fromKafkaProduce, kafkaProduceMapping, toKafkaProduce } from './kafka-produce-mapping.js'

/** Writes `body` as the broker would (Produce v9) and reads it back as the client does. */
function overTheWire(body: kafka.ProduceResponseInput): kafka.ProduceResponse {
  const w = new kafka.KafkaWriter()
  kafka.ProduceApi.writeResponse(w, kafkaProduceMapping.version, body)
  return kafka.ProduceApi.readResponse(new kafka.KafkaReader(Buffer.concat(w.toFrame()).subarray(4)), 9)
}

function requestOverTheWire(body: kafka.ProduceRequestInput): kafka.ProduceRequest {
  const w = new kafka.KafkaWriter()
  kafka.ProduceApi.writeRequest(w, kafkaProduceMapping.version, body)
  return kafka.ProduceApi.readRequest(new kafka.KafkaReader(Buffer.concat(w.toFrame()).subarray(4)), 9)
}

describe('the Produce mapping (Kafka Produce v9)', () => {
  it('carries acks, the timeout, a null transactional id and each batch with its producer id, epoch and sequence', () => {
    const batch = encodeRecordBatch([{ key: Buffer.from('k'), value: Buffer.from('v'), headers: [] }], {
      compression: 'none',
      producerId: 42n,
      producerEpoch: 3,
      baseSequence: 7,
    })
    const req = requestOverTheWire(
      toKafkaProduce({
        acks: -1,
        timeout_ms: 1234,
        client_id: 'ignored: the client id is in the request header',
        topics: [
          { topic: 'a', partitions: [{ partition: 0, records: batch }] },
          { topic: 'b', partitions: [{ partition: 5, records: batch }] },
        ],
      }),
    )
    expect(req.transactionalId).toBeNull()
    expect(req.acks).toBe(-1)
    expect(req.timeoutMs).toBe(1234)
    expect(req.topicData.map((t) => [t.name, t.partitionData.map((p) => p.index)])).toEqual([
      ['a', [0]],
      ['b', [5]],
    ])
    const sent = req.topicData[0]!.partitionData[0]!.records!
    expect(sent.equals(batch)).toBe(true)
    expect(frameBatchAt(sent, 0)).toMatchObject({ producerId: 42n, producerEpoch: 3, baseSequence: 7 })
  })

  it('answers offsets, log-append time, log start offset and throttle in the wire shape', () => {
    const res = fromKafkaProduce(
      overTheWire({
        throttleTimeMs: 17,
        responses: [
          {
            name: 't',
            partitionResponses: [
              { index: 2, errorCode: 0, baseOffset: 9_007_199_254_740_993n, logAppendTimeMs: 55n, logStartOffset: 4n },
            ],
          },
        ],
      }),
    )
    expect(res.throttle_time_ms).toBe(17)
    expect(res.topics).toEqual([
      {
        topic: 't',
        partitions: [
          {
            partition: 2,
            error_code: 0,
            error_message: '',
            base_offset: '9007199254740993',
            log_append_time_ms: '55',
            log_start_offset: '4',
          },
        ],
      },
    ])
  })

  it('turns every error the broker can answer into the SluiceError of the same name and retriability', () => {
    for (const name of Object.keys(ErrorCode) as ErrorCodeName[]) {
      if (name === 'NONE') continue
      // What the broker's Kafka listener sends for this error (Sluice-only ids become Kafka's nearest).
      const code = kafkaErrorCode(errorId(name))
      const res = fromKafkaProduce(
        overTheWire({
          responses: [
            { name: 't', partitionResponses: [{ index: 0, errorCode: code, baseOffset: -1n, errorMessage: 'why' }] },
          ],
        }),
      )
      const p = res.topics[0]!.partitions[0]!
      const err = SluiceError.fromId(p.error_code, p.error_message)
      const expected =
        code === errorId(name)
          ? name
          : (Object.keys(ErrorCode) as ErrorCodeName[]).find((n) => ErrorCode[n].id === code)!
      expect(err.code, name).toBe(expected)
      expect(err.retriable, name).toBe(ErrorCode[expected].retriable)
      expect(err.message).toContain('why')
    }
  })

  it('reads the retriable errors of a produce as retriable, and the stale-metadata ones as such', () => {
    const read = (name: ErrorCodeName): SluiceError => {
      const p = fromKafkaProduce(
        overTheWire({
          responses: [{ name: 't', partitionResponses: [{ index: 0, errorCode: errorId(name), baseOffset: -1n }] }],
        }),
      ).topics[0]!.partitions[0]!
      return SluiceError.fromId(p.error_code, p.error_message)
    }
    for (const name of ['NOT_LEADER_OR_FOLLOWER', 'UNKNOWN_TOPIC_OR_PARTITION'] as const) {
      expect(read(name).retriable).toBe(true)
      expect(read(name).staleMetadata).toBe(true)
    }
    for (const name of ['NOT_ENOUGH_REPLICAS', 'NOT_ENOUGH_REPLICAS_AFTER_APPEND', 'REQUEST_TIMED_OUT'] as const) {
      expect(read(name).retriable).toBe(true)
    }
    expect(read('MESSAGE_TOO_LARGE').retriable).toBe(false)
    expect(read('OUT_OF_ORDER_SEQUENCE_NUMBER').code).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER')
    expect(read('DUPLICATE_SEQUENCE_NUMBER').code).toBe('DUPLICATE_SEQUENCE_NUMBER')
  })

  it('falls back to a per-batch record error message when the partition has none', () => {
    const p = fromKafkaProduce(
      overTheWire({
        responses: [
          {
            name: 't',
            partitionResponses: [
              {
                index: 0,
                errorCode: errorId('INVALID_RECORD'),
                baseOffset: -1n,
                recordErrors: [{ batchIndex: 0, batchIndexErrorMessage: 'record 0 has no key' }],
              },
            ],
          },
        ],
      }),
    ).topics[0]!.partitions[0]!
    expect(p.error_message).toBe('record 0 has no key')
  })
})
