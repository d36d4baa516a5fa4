import { describe, expect, it } from 'vitest'
import { decodeRecordBatches, encodeRecordBatch, errorId, kafka } from '@sluice/protocol'
import { brokerInternals, fetchHandler, produceHandler, type BrokerHandle } from '@sluice/broker/internal'
import { batch, createTopic, eventually, uniqueTopic } from '../../src/broker/harness.js'
import { KafkaHandlerClient } from '../../src/broker/kafka-handler-client.js'
import { ReplicationCluster } from '../../src/broker/replication-cluster.js'

const ACKS = [1, -1, 0] as const

function produceRequest(
  topic: string,
  records: Buffer,
  options: { acks?: number; partition?: number; transactionalId?: string } = {},
): kafka.ProduceRequestInput {
  return {
    transactionalId: options.transactionalId ?? null,
    acks: options.acks ?? -1,
    timeoutMs: 5000,
    topicData: [{ name: topic, partitionData: [{ index: options.partition ?? 0, records }] }],
  }
}

function fetchRequest(
  topic: string,
  fetchOffset: bigint,
  options: Partial<kafka.FetchRequestInput> & { partitionMaxBytes?: number; partitions?: number[] } = {},
): kafka.FetchRequestInput {
  const { partitionMaxBytes, partitions, ...rest } = options
  return {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    isolationLevel: 0,
    ...rest,
    topics: [
      {
        topic,
        partitions: (partitions ?? [0]).map((partition) => ({
          partition,
          fetchOffset,
          partitionMaxBytes: partitionMaxBytes ?? 1 << 20,
        })),
      },
    ],
  }
}

function onlyProduced(res: kafka.ProduceResponse | undefined): kafka.ProduceResponsePartitionProduceResponse {
  const p = res?.responses[0]?.partitionResponses[0]
  if (p === undefined) throw new Error(`no partition in ${JSON.stringify(res)}`)
  return p
}

function onlyFetched(res: kafka.FetchResponse | undefined, index = 0): kafka.FetchResponsePartitionData {
  const p = res?.responses[0]?.partitions[index]
  if (p === undefined) throw new Error('no partition in the fetch answer')
  return p
}

/** A batch as the log stores it: the sent bytes with the base offset and leader epoch stamped. */
function stamped(sent: Buffer, baseOffset: bigint, leaderEpoch: number): Buffer {
  const b = Buffer.from(sent)
  b.writeBigInt64BE(baseOffset, 0)
  b.writeInt32BE(leaderEpoch, 12)
  return b
}

function values(records: Buffer | null): string[] {
  return decodeRecordBatches(records ?? Buffer.alloc(0)).flatMap((b) => b.records.map((r) => r.value?.toString() ?? ''))
}

async function singleBroker(): Promise<{ c: ReplicationCluster; broker: BrokerHandle; client: KafkaHandlerClient }> {
  const c = await ReplicationCluster.start(1)
  const broker = c.brokers.get(1)!
  return { c, broker, client: new KafkaHandlerClient(broker) }
}

describe('Kafka Produce and Fetch handlers', () => {
  it('appends with acks 1, -1 and 0 (no answer) and fetches back the same batch bytes, at the lowest and highest versions', async () => {
    const { c, client } = await singleBroker()
    const topic = await c.topic([1])
    const { leaderEpoch } = await c.waitForState(topic, (s) => s.leader === 1, 'a leader')
    const sent: Buffer[] = []
    for (const [i, acks] of ACKS.entries()) {
      for (const version of [3, 9]) {
        const records = batch([`acks${acks}-v${version}-${i}`])
        sent.push(Buffer.from(records))
        const res = await client.call(
          produceHandler,
          kafka.ProduceApi,
          version,
          produceRequest(topic, records, { acks }),
        )
        if (acks === 0) {
          expect(res).toBeUndefined()
          continue
        }
        const p = onlyProduced(res)
        // logStartOffset is in the answer from v5 on; before, the reader holds Kafka's default.
        expect([p.errorCode, p.baseOffset, p.logStartOffset]).toEqual([
          0,
          BigInt(sent.length - 1),
          version >= 5 ? 0n : -1n,
        ])
        expect(p.logAppendTimeMs).toBe(-1n)
      }
    }
    // acks=0 got no answer: wait until its records are visible, then compare every byte.
    const expected = Buffer.concat(sent.map((b, i) => stamped(b, BigInt(i), leaderEpoch)))
    for (const version of [4, 12]) {
      const f = await eventually(async () => {
        const p = onlyFetched(await client.call(fetchHandler, kafka.FetchApi, version, fetchRequest(topic, 0n)))
        return p.highWatermark === BigInt(sent.length) ? p : undefined
      }, 'every batch visible')
      expect(f.errorCode).toBe(0)
      expect(f.records).toEqual(expected)
      expect([f.lastStableOffset, f.logStartOffset, f.preferredReadReplica]).toEqual([
        BigInt(sent.length),
        version >= 5 ? 0n : -1n,
        -1,
      ])
    }
  })

  it('Fetch v13 names topics by id (KIP-516); an id no topic has is UNKNOWN_TOPIC_ID', async () => {
    const { c, broker, client } = await singleBroker()
    const topic = await c.topic([1])
    await c.waitForState(topic, (s) => s.leader === 1, 'a leader')
    const produced = onlyProduced(
      await client.call(produceHandler, kafka.ProduceApi, 9, produceRequest(topic, batch(['by-id']))),
    )
    expect(produced.errorCode).toBe(0)
    const cache = brokerInternals(broker)!.context.cache
    const topicId = await eventually(async () => {
      const id = cache.partitionsOf(topic)[0]?.topicId
      return id === undefined || id === '' ? undefined : Buffer.from(id, 'base64url')
    }, 'the topic id in the cache')
    const unknownId = Buffer.alloc(16, 9)
    const res = await client.call(fetchHandler, kafka.FetchApi, 13, {
      ...fetchRequest('', 0n),
      topics: [
        { topicId, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] },
        { topicId: unknownId, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] },
      ],
    })
    expect(res?.responses.map((t) => t.topicId.equals(topicId))).toEqual([true, false])
    expect(res?.responses[1]?.topicId.equals(unknownId)).toBe(true)
    expect(values(onlyFetched(res).records)).toEqual(['by-id'])
    expect(res?.responses[1]?.partitions[0]?.errorCode).toBe(errorId('UNKNOWN_TOPIC_ID'))
  })

  it('answers an idempotent retry with the original offset and a sequence gap with OUT_OF_ORDER_SEQUENCE_NUMBER', async () => {
    const { c, client } = await singleBroker()
    const topic = await c.topic([1])
    await c.waitForState(topic, (s) => s.leader === 1, 'a leader')
    const idem = (seq: number, v: string[]): Buffer =>
      encodeRecordBatch(
        v.map((x) => ({ value: Buffer.from(x) })),
        { producerId: 7n, producerEpoch: 0, baseSequence: seq },
      )
    const produce = async (records: Buffer) =>
      onlyProduced(await client.call(produceHandler, kafka.ProduceApi, 9, produceRequest(topic, records)))
    expect((await produce(idem(0, ['a', 'b']))).baseOffset).toBe(0n)
    expect((await produce(idem(2, ['c']))).baseOffset).toBe(2n)
    const retry = await produce(idem(0, ['a', 'b']))
    expect([retry.errorCode, retry.baseOffset]).toEqual([0, 0n])
    const gap = await produce(idem(9, ['gap']))
    expect(gap.errorCode).toBe(errorId('OUT_OF_ORDER_SEQUENCE_NUMBER'))
    expect(gap.errorMessage).toContain('out of order')
    const f = onlyFetched(await client.call(fetchHandler, kafka.FetchApi, 12, fetchRequest(topic, 0n)))
    expect(values(f.records)).toEqual(['a', 'b', 'c'])
  })

  it('refuses transactional requests, bad batches and bad acks per partition and appends nothing', async () => {
    const { c, client } = await singleBroker()
    const topic = await c.topic([1])
    await c.waitForState(topic, (s) => s.leader === 1, 'a leader')
    for (const version of [3, 9]) {
      const res = await client.call(
        produceHandler,
        kafka.ProduceApi,
        version,
        produceRequest(topic, batch(['tx']), { transactionalId: 'tx-1' }),
      )
      expect(onlyProduced(res).errorCode).toBe(errorId('TRANSACTIONAL_ID_AUTHORIZATION_FAILED'))
    }
    // Bad batches are the shared validation's: Kafka's CORRUPT_MESSAGE, nothing appended.
    const badCrc = batch(['crc'])
    badCrc[badCrc.length - 1]! ^= 0xff
    for (const records of [badCrc, batch(['cut']).subarray(0, 30), null]) {
      const res = await client.call(produceHandler, kafka.ProduceApi, 9, {
        acks: 1,
        timeoutMs: 1000,
        topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
      })
      expect(onlyProduced(res).errorCode).toBe(errorId('CORRUPT_MESSAGE'))
      expect(onlyProduced(res).errorMessage).toMatch(/.+/)
    }
    const badAcks = await client.call(
      produceHandler,
      kafka.ProduceApi,
      3,
      produceRequest(topic, batch(['a']), { acks: 2 }),
    )
    expect(onlyProduced(badAcks).errorCode).toBe(errorId('INVALID_REQUIRED_ACKS'))
    expect(c.replica(1, topic)!.logEndOffset).toBe(0n)
  })

  it('long-polls: returns when data arrives, after maxWaitMs when none does, and nothing when the connection closes', async () => {
    const { c, broker, client } = await singleBroker()
    const topic = await c.topic([1])
    await c.waitForState(topic, (s) => s.leader === 1, 'a leader')
    const waitMs = 300
    const started = Date.now()
    const empty = onlyFetched(
      await client.call(fetchHandler, kafka.FetchApi, 12, fetchRequest(topic, 0n, { maxWaitMs: waitMs, minBytes: 1 })),
    )
    expect(Date.now() - started).toBeGreaterThanOrEqual(waitMs - 20)
    expect([empty.errorCode, empty.records?.length ?? 0]).toEqual([0, 0])

    const parked = client.call(
      fetchHandler,
      kafka.FetchApi,
      12,
      fetchRequest(topic, 0n, { maxWaitMs: 20_000, minBytes: 1 }),
    )
    const purgatory = brokerInternals(broker)?.context.purgatory
    await eventually(async () => (purgatory?.size === 1 ? true : undefined), 'the fetch parked')
    const t0 = Date.now()
    await client.call(produceHandler, kafka.ProduceApi, 9, produceRequest(topic, batch(['wake'])))
    const woken = onlyFetched(await parked)
    expect(Date.now() - t0).toBeLessThan(10_000)
    expect(values(woken.records)).toEqual(['wake'])

    const orphan = client.call(
      fetchHandler,
      kafka.FetchApi,
      12,
      fetchRequest(topic, 1n, { maxWaitMs: 20_000, minBytes: 1 }),
    )
    await eventually(async () => (purgatory?.size === 1 ? true : undefined), 'the second fetch parked')
    client.close()
    expect(await orphan).toBeUndefined()
  })

  it('keeps to partitionMaxBytes and maxBytes, but always returns the first whole batch', async () => {
    const { c, client } = await singleBroker()
    const topic = uniqueTopic()
    await createTopic({ admin: c.admin } as never, {
      name: topic,
      num_partitions: -1,
      replication_factor: -1,
      assignments: [
        { partition: 0, replicas: [1] },
        { partition: 1, replicas: [1] },
      ],
    })
    const big = (tag: string) => batch([`${tag}-${'x'.repeat(1000)}`])
    await eventually(async () => {
      for (const partition of [0, 1]) {
        const res = await client.call(
          produceHandler,
          kafka.ProduceApi,
          9,
          produceRequest(topic, big('probe'), { partition }),
        )
        if (onlyProduced(res).errorCode !== 0) return undefined
      }
      return true
    }, 'both partitions take writes')
    for (let i = 0; i < 3; i++) {
      for (const partition of [0, 1]) {
        await client.call(
          produceHandler,
          kafka.ProduceApi,
          9,
          produceRequest(topic, big(`p${partition}-${i}`), { partition }),
        )
      }
    }
    const batchBytes = big('p0-0').length
    const read = async (o: Partial<kafka.FetchRequestInput> & { partitionMaxBytes?: number }) =>
      client.call(fetchHandler, kafka.FetchApi, 12, fetchRequest(topic, 1n, { ...o, partitions: [0, 1] }))

    // One byte per partition: each partition still gets its first whole batch (KIP-74).
    const tiny = await read({ partitionMaxBytes: 1 })
    expect(values(onlyFetched(tiny, 0).records)).toEqual([`p0-0-${'x'.repeat(1000)}`])
    expect(onlyFetched(tiny, 0).records?.length).toBe(batchBytes)
    // Room for two and a half batches: two whole ones.
    const two = await read({ partitionMaxBytes: Math.floor(batchBytes * 2.5) })
    expect(values(onlyFetched(two, 0).records)).toHaveLength(2)
    // maxBytes of one byte: the first partition's first batch, nothing for the second.
    const capped = await read({ maxBytes: 1 })
    expect(onlyFetched(capped, 0).records?.length).toBe(batchBytes)
    expect(onlyFetched(capped, 1).records?.length ?? 0).toBe(0)
  })

  it('answers OFFSET_OUT_OF_RANGE with the valid range, unknown topics, sessions and follower fetches with Kafka errors', async () => {
    const { c, client } = await singleBroker()
    const topic = await c.topic([1])
    await c.waitForState(topic, (s) => s.leader === 1, 'a leader')
    await client.call(produceHandler, kafka.ProduceApi, 9, produceRequest(topic, batch(['one'])))
    for (const version of [4, 12]) {
      const out = onlyFetched(await client.call(fetchHandler, kafka.FetchApi, version, fetchRequest(topic, 50n)))
      expect([out.errorCode, out.highWatermark, out.logStartOffset]).toEqual([
        errorId('OFFSET_OUT_OF_RANGE'),
        1n,
        version >= 5 ? 0n : -1n,
      ])
      const unknown = onlyFetched(await client.call(fetchHandler, kafka.FetchApi, version, fetchRequest('nope', 0n)))
      expect(unknown.errorCode).toBe(errorId('UNKNOWN_TOPIC_OR_PARTITION'))
    }
    const unknownProduce = await client.call(produceHandler, kafka.ProduceApi, 3, produceRequest('nope', batch(['x'])))
    expect(onlyProduced(unknownProduce).errorCode).toBe(errorId('UNKNOWN_TOPIC_OR_PARTITION'))

    const session = await client.call(fetchHandler, kafka.FetchApi, 12, fetchRequest(topic, 0n, { sessionId: 5 }))
    expect([session?.errorCode, session?.sessionId, session?.responses]).toEqual([
      errorId('FETCH_SESSION_ID_NOT_FOUND'),
      0,
      [],
    ])
    const epoch = await client.call(fetchHandler, kafka.FetchApi, 7, fetchRequest(topic, 0n, { sessionEpoch: 3 }))
    expect(epoch?.errorCode).toBe(errorId('INVALID_FETCH_SESSION_EPOCH'))
    const sessionless = await client.call(
      fetchHandler,
      kafka.FetchApi,
      12,
      fetchRequest(topic, 0n, { sessionEpoch: -1 }),
    )
    expect([sessionless?.errorCode, sessionless?.sessionId, values(onlyFetched(sessionless).records)]).toEqual([
      0,
      0,
      ['one'],
    ])
    const follower = await client.call(fetchHandler, kafka.FetchApi, 12, fetchRequest(topic, 0n, { replicaId: 2 }))
    expect(follower?.errorCode).toBe(errorId('INVALID_REQUEST'))
    // read_committed reads the same records; the last stable offset is the high watermark.
    const committed = onlyFetched(
      await client.call(fetchHandler, kafka.FetchApi, 12, fetchRequest(topic, 0n, { isolationLevel: 1 })),
    )
    expect([committed.lastStableOffset, committed.abortedTransactions, values(committed.records)]).toEqual([
      1n,
      [],
      ['one'],
    ])
  })

  it('answers NOT_LEADER_OR_FOLLOWER on a non-leader, with the leader and epoch in Fetch v12', async () => {
    const c = await ReplicationCluster.start(2)
    const topic = await c.topic([2, 1])
    const state = await c.waitForState(topic, (s) => s.leader === 2 && s.isr.length === 2, 'broker 2 leads')
    const onFollower = new KafkaHandlerClient(c.brokers.get(1)!)
    for (const version of [3, 9]) {
      const p = onlyProduced(
        await onFollower.call(produceHandler, kafka.ProduceApi, version, produceRequest(topic, batch(['x']))),
      )
      expect(p.errorCode).toBe(errorId('NOT_LEADER_OR_FOLLOWER'))
    }
    const f12 = onlyFetched(await onFollower.call(fetchHandler, kafka.FetchApi, 12, fetchRequest(topic, 0n)))
    expect(f12.errorCode).toBe(errorId('NOT_LEADER_OR_FOLLOWER'))
    expect(f12.currentLeader).toEqual({ leaderId: 2, leaderEpoch: state.leaderEpoch })
    const f4 = onlyFetched(await onFollower.call(fetchHandler, kafka.FetchApi, 4, fetchRequest(topic, 0n)))
    expect(f4.errorCode).toBe(errorId('NOT_LEADER_OR_FOLLOWER'))
    // A leader epoch the leader does not know yet is UNKNOWN_LEADER_EPOCH, also with the hint.
    const onLeader = new KafkaHandlerClient(c.brokers.get(2)!)
    const ahead = onlyFetched(
      await onLeader.call(fetchHandler, kafka.FetchApi, 12, {
        ...fetchRequest(topic, 0n),
        topics: [
          {
            topic,
            partitions: [
              { partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: state.leaderEpoch + 1 },
            ],
          },
        ],
      }),
    )
    expect(ahead.errorCode).toBe(errorId('UNKNOWN_LEADER_EPOCH'))
    expect(ahead.currentLeader).toEqual({ leaderId: 2, leaderEpoch: state.leaderEpoch })
  })
})
