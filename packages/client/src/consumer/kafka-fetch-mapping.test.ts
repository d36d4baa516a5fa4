import { describe, expect, it } from 'vitest'
import { ErrorCode, SluiceError, errorId, kafka, kafkaErrorCode, type ErrorCodeName } from '@sluice/protocol'
import { fromKafkaFetch, kafkaFetchMapping, toKafkaFetch } from './kafka-fetch-mapping.js'

const V = kafkaFetchMapping.version

/** Writes `body` as the broker would (Fetch v12) and reads it back as the client does. */
function overTheWire(body: kafka.FetchResponseInput): kafka.FetchResponse {
  const w = new kafka.KafkaWriter()
  kafka.FetchApi.writeResponse(w, V, body)
  return kafka.FetchApi.readResponse(new kafka.KafkaReader(Buffer.concat(w.toFrame()).subarray(4)), V)
}

function requestOverTheWire(body: kafka.FetchRequestInput): kafka.FetchRequest {
  const w = new kafka.KafkaWriter()
  kafka.FetchApi.writeRequest(w, V, body)
  return kafka.FetchApi.readRequest(new kafka.KafkaReader(Buffer.concat(w.toFrame()).subarray(4)), V)
}

const partitionAnswer = (errorCode: number): kafka.FetchResponseInput => ({
  responses: [{ topic: 't', partitions: [{ partitionIndex: 0, errorCode, highWatermark: -1n }] }],
})

describe('the Fetch mapping (Kafka Fetch v12)', () => {
  it('carries the long poll, the size limits, the isolation level and each partition, outside any fetch session', () => {
    expect(V).toBe(12)
    const req = requestOverTheWire(
      toKafkaFetch({
        replica_id: -1,
        max_wait_ms: 500,
        min_bytes: 1,
        max_bytes: 1_000_000,
        isolation_level: 1,
        client_id: 'ignored: the client id is in the request header',
        topics: [
          {
            topic: 'a',
            partitions: [
              {
                partition: 3,
                fetch_offset: '9007199254740993',
                current_leader_epoch: 4,
                partition_max_bytes: 65_536,
                last_fetched_epoch: -1,
                log_start_offset: '-1',
              },
            ],
          },
          { topic: 'b', partitions: [{ partition: 0, fetch_offset: 7, partition_max_bytes: 10 }] },
        ],
      }),
    )
    expect(req).toMatchObject({
      clusterId: null,
      replicaId: -1,
      maxWaitMs: 500,
      minBytes: 1,
      maxBytes: 1_000_000,
      isolationLevel: 1,
      sessionId: 0,
      sessionEpoch: -1,
      forgottenTopicsData: [],
      rackId: '',
    })
    expect(req.topics.map((t) => t.topic)).toEqual(['a', 'b'])
    expect(req.topics[0]!.partitions[0]).toMatchObject({
      partition: 3,
      currentLeaderEpoch: 4,
      fetchOffset: 9_007_199_254_740_993n,
      lastFetchedEpoch: -1,
      logStartOffset: -1n,
      partitionMaxBytes: 65_536,
    })
    // Fields left out of the wire request take the "not checked" values.
    expect(req.topics[1]!.partitions[0]).toMatchObject({
      fetchOffset: 7n,
      currentLeaderEpoch: -1,
      lastFetchedEpoch: -1,
      logStartOffset: -1n,
    })
  })

  it('answers the high watermark, last stable offset, log start offset, records and throttle in the wire shape', () => {
    const records = Buffer.from('raw batches, passed through untouched')
    const res = fromKafkaFetch(
      overTheWire({
        throttleTimeMs: 9,
        errorCode: 0,
        responses: [
          {
            topic: 't',
            partitions: [
              {
                partitionIndex: 1,
                errorCode: 0,
                highWatermark: 20n,
                lastStableOffset: 18n,
                logStartOffset: 2n,
                records,
              },
              { partitionIndex: 2, errorCode: 0, highWatermark: 0n, records: null },
            ],
          },
        ],
      }),
    )
    expect(res.error_code).toBe(0)
    expect(res.throttle_time_ms).toBe(9)
    const [one, two] = res.topics[0]!.partitions
    expect(one).toMatchObject({
      partition: 1,
      error_code: 0,
      high_watermark: '20',
      last_stable_offset: '18',
      log_start_offset: '2',
      // Kafka's Fetch has no log end offset: the high watermark stands in.
      log_end_offset: '20',
      diverging_epoch: null,
      leader_epoch: -1,
    })
    expect(one!.records.equals(records)).toBe(true)
    expect(two!.records.length).toBe(0)
  })

  it('answers a diverging epoch only when there is one, and the current leader epoch of a fenced fetch', () => {
    const res = fromKafkaFetch(
      overTheWire({
        responses: [
          {
            topic: 't',
            partitions: [
              { partitionIndex: 0, errorCode: 0, highWatermark: 5n, divergingEpoch: { epoch: 3, endOffset: 100n } },
              // No divergence: the field's default (-1, -1). (The leader's (-1, 0) is "no common epoch",
              // a divergence; fetch-partition-answer.ts in protocol holds the rule.)
              { partitionIndex: 1, errorCode: 0, highWatermark: 5n },
              {
                partitionIndex: 2,
                errorCode: errorId('FENCED_LEADER_EPOCH'),
                highWatermark: -1n,
                currentLeader: { leaderId: 2, leaderEpoch: 8 },
              },
            ],
          },
        ],
      }),
    )
    const [diverged, none, fenced] = res.topics[0]!.partitions
    expect(diverged!.diverging_epoch).toEqual({ epoch: 3, end_offset: '100' })
    expect(none!.diverging_epoch).toBeNull()
    expect(fenced!.leader_epoch).toBe(8)
    expect(SluiceError.fromId(fenced!.error_code).code).toBe('FENCED_LEADER_EPOCH')
  })

  it('turns every error the broker can answer, per partition or for the whole request, into the SluiceError of the same name', () => {
    for (const name of Object.keys(ErrorCode) as ErrorCodeName[]) {
      if (name === 'NONE') continue
      const code = kafkaErrorCode(errorId(name))
      const expected =
        code === errorId(name)
          ? name
          : (Object.keys(ErrorCode) as ErrorCodeName[]).find((n) => ErrorCode[n].id === code)!
      const p = fromKafkaFetch(overTheWire(partitionAnswer(code))).topics[0]!.partitions[0]!
      const err = SluiceError.fromId(p.error_code, p.error_message)
      expect(err.code, name).toBe(expected)
      expect(err.retriable, name).toBe(ErrorCode[expected].retriable)
      const whole = fromKafkaFetch(overTheWire({ errorCode: code, responses: [] }))
      expect(SluiceError.fromId(whole.error_code).code, name).toBe(expected)
    }
  })

  it('reads the fetch errors the consumer acts on with the right retriability', () => {
    const read = (name: ErrorCodeName): SluiceError => {
      const p = fromKafkaFetch(overTheWire(partitionAnswer(errorId(name)))).topics[0]!.partitions[0]!
      return SluiceError.fromId(p.error_code, p.error_message)
    }
    for (const name of ['NOT_LEADER_OR_FOLLOWER', 'UNKNOWN_TOPIC_OR_PARTITION', 'FENCED_LEADER_EPOCH'] as const) {
      expect(read(name).retriable, name).toBe(true)
      expect(read(name).staleMetadata, name).toBe(true)
    }
    expect(read('UNKNOWN_LEADER_EPOCH').retriable).toBe(true)
    expect(read('OFFSET_OUT_OF_RANGE').code).toBe('OFFSET_OUT_OF_RANGE')
    expect(read('OFFSET_OUT_OF_RANGE').retriable).toBe(false)
    expect(read('CORRUPT_MESSAGE').retriable).toBe(false)
  })
})
