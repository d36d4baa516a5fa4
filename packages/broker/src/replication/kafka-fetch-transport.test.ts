import { describe, expect, it, onTestFinished } from 'vitest'
import { kafka, SluiceError } from '@sluice/protocol'
import { kafkaTopicId } from '../kafka/topic-id.js'
import { fakeLeader } from './__fixtures__/fake-kafka-leader.js'
import type { FollowerFetchRequest } from './follower-fetch-types.js'
import { fromKafkaFetch, KafkaFetchConnection, REPLICA_FETCH_VERSION, toKafkaFetch } from './kafka-fetch-transport.js'

const ID_A = 'AAECAwQFBgcICQoLDA0ODw' // 16 bytes 0..15 in URL-safe base64

function followerRequest(): FollowerFetchRequest {
  return {
    correlationId: 9n,
    replicaId: 2,
    replicaEpoch: 41n,
    maxWaitMs: 500,
    minBytes: 1,
    maxBytes: 10 << 20,
    clientId: 'replica-fetcher-2',
    topics: [
      {
        topic: 'a',
        partitions: [
          {
            partition: 3,
            fetchOffset: 17n,
            currentLeaderEpoch: 4,
            partitionMaxBytes: 1 << 20,
            lastFetchedEpoch: 3,
            logStartOffset: 5n,
          },
        ],
      },
      {
        topic: 'no-id',
        partitions: [
          {
            partition: 0,
            fetchOffset: 0n,
            currentLeaderEpoch: 0,
            partitionMaxBytes: 1024,
            lastFetchedEpoch: -1,
            logStartOffset: 0n,
          },
        ],
      },
    ],
  }
}

/** Topic 'a' has ID_A; no other topic has an id. */
const idsOfA = (): ((topic: string) => string | undefined) => (t) => (t === 'a' ? ID_A : undefined)

/** Through the generated codec, as the leader's Kafka listener reads it. */
function onTheWire<T>(write: (w: kafka.KafkaWriter) => void, read: (r: kafka.KafkaReader) => T): T {
  const w = new kafka.KafkaWriter()
  write(w)
  return read(new kafka.KafkaReader(w.toBuffer()))
}

describe('the Kafka transport of follower fetches', () => {
  it('sends Fetch v15 with the follower id and broker epoch in ReplicaState and topics by id', () => {
    const req = followerRequest()
    const body = toKafkaFetch(req, idsOfA())
    // The request's partitions are Kafka's already: sent as they are, not copied.
    expect(body.topics[0]!.partitions).toBe(req.topics[0]!.partitions)
    const read = onTheWire(
      (w) => kafka.FetchApi.writeRequest(w, REPLICA_FETCH_VERSION, body),
      (r) => kafka.FetchApi.readRequest(r, REPLICA_FETCH_VERSION),
    )
    expect(read.replicaState).toEqual({ replicaId: 2, replicaEpoch: 41n })
    expect(read.replicaId).toBe(-1) // v15 has no top-level replica id
    expect([read.maxWaitMs, read.minBytes, read.maxBytes, read.sessionId, read.sessionEpoch]).toEqual([
      500,
      1,
      10 << 20,
      0,
      -1,
    ])
    expect(read.topics[0]!.topicId.equals(kafkaTopicId(ID_A))).toBe(true)
    expect(read.topics[0]!.partitions[0]).toMatchObject({
      partition: 3,
      fetchOffset: 17n,
      currentLeaderEpoch: 4,
      lastFetchedEpoch: 3,
      logStartOffset: 5n,
      partitionMaxBytes: 1 << 20,
    })
    // A topic without a known id goes out with the zero id (the leader answers UNKNOWN_TOPIC_ID).
    expect(read.topics[1]!.topicId.equals(Buffer.alloc(16))).toBe(true)
  })

  it("answers in the fetcher's shape with Kafka's bigints: records, the high watermark, a diverging epoch, no log end offset", () => {
    const req = followerRequest()
    const sent = toKafkaFetch(req, idsOfA())
    const records = Buffer.from('batch bytes')
    const partition = (partitionIndex: number, more: Partial<kafka.FetchResponsePartitionDataInput>) => ({
      partitionIndex,
      errorCode: 0,
      highWatermark: 12n,
      logStartOffset: 5n,
      ...more,
    })
    const answer = onTheWire(
      (w) =>
        kafka.FetchApi.writeResponse(w, REPLICA_FETCH_VERSION, {
          sessionId: 0,
          responses: [
            {
              topicId: kafkaTopicId(ID_A),
              partitions: [
                partition(3, { records }),
                partition(4, { divergingEpoch: { epoch: 2, endOffset: 9n } }),
                partition(5, { divergingEpoch: { epoch: -1, endOffset: 0n } }),
                partition(6, { errorCode: 77 }),
              ],
            },
            { topicId: Buffer.alloc(16, 7), partitions: [partition(0, {})] }, // an id this request did not send
          ],
        }),
      (r) => kafka.FetchApi.readResponse(r, REPLICA_FETCH_VERSION),
    )
    const res = fromKafkaFetch(req, sent, answer)
    expect(res.correlationId).toBe(9n)
    expect(res.errorCode).toBe(0)
    expect(res.topics.map((t) => t.topic)).toEqual(['a'])
    const [withRecords, diverging, noCommonEpoch, stale] = res.topics[0]!.partitions
    expect(withRecords).toMatchObject({
      partition: 3,
      errorCode: 0,
      highWatermark: 12n,
      logStartOffset: 5n,
      logEndOffset: -1n, // Kafka's answer has none: unknown
      divergingEpoch: undefined,
    })
    expect(withRecords!.records.equals(records)).toBe(true)
    expect(diverging!.divergingEpoch).toEqual({ epoch: 2, endOffset: 9n })
    expect(diverging!.records.length).toBe(0)
    // "No common epoch" is sent as (-1, 0) because (-1, -1) is the field's default and not written.
    expect(noCommonEpoch!.divergingEpoch).toEqual({ epoch: -1, endOffset: 0n })
    expect(stale!.errorCode).toBe(77)
  })
})

describe('KafkaFetchConnection', () => {
  it('asks ApiVersions first, and refuses a leader without Fetch v15 with UNSUPPORTED_VERSION', async () => {
    const old = await fakeLeader([4, 13])
    const current = await fakeLeader([4, 15])
    onTestFinished(async () => {
      await old.close()
      await current.close()
    })
    let unsupported = 0
    const refused = new KafkaFetchConnection({
      address: `127.0.0.1:${old.port}`,
      clientId: 'test',
      topicIdOf: () => ID_A,
      onUnsupported: () => unsupported++,
    })
    const err = await refused.fetch(followerRequest()).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(SluiceError)
    expect((err as SluiceError).code).toBe('UNSUPPORTED_VERSION')
    expect(unsupported).toBe(1)
    refused.close(new Error('done'))

    const served = new KafkaFetchConnection({
      address: `127.0.0.1:${current.port}`,
      clientId: 'test',
      topicIdOf: () => ID_A,
      onUnsupported: () => unsupported++,
    })
    const res = await served.fetch(followerRequest())
    expect([res.correlationId, res.errorCode, res.topics]).toEqual([9n, 0, []])
    expect(unsupported).toBe(1)
    served.close(new Error('done'))
  })
})
