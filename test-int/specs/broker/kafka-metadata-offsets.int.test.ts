import { describe, expect, it, vi } from 'vitest'
import { errorId, kafka } from '@sluice/protocol'
import {
  brokerInternals,
  deleteRecordsHandler,
  listOffsetsHandler,
  metadataHandler,
  offsetForLeaderEpochHandler,
  produceHandler,
} from '@sluice/broker/internal'
import { batch, createTopic, eventually, uniqueTopic } from '../../src/broker/harness.js'
import { advertisedKafkaPort, KafkaHandlerClient } from '../../src/broker/kafka-handler-client.js'
import { ReplicationCluster } from '../../src/broker/replication-cluster.js'

const NOT_REQUESTED = -2147483648
const ZERO_UUID = Buffer.alloc(16)

function metadataRequest(topics: Array<string | Buffer> | null): kafka.MetadataRequestInput {
  return {
    topics:
      topics === null ? null : topics.map((t) => (typeof t === 'string' ? { name: t } : { name: null, topicId: t })),
    allowAutoTopicCreation: true,
    includeTopicAuthorizedOperations: true,
    includeClusterAuthorizedOperations: true,
  }
}

async function produceAt(client: KafkaHandlerClient, topic: string, records: Buffer): Promise<bigint> {
  const res = await client.call(produceHandler, kafka.ProduceApi, 9, {
    acks: -1,
    timeoutMs: 10_000,
    topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
  })
  const p = res?.responses[0]?.partitionResponses[0]
  expect(p?.errorCode).toBe(0)
  return p!.baseOffset
}

describe('Kafka Metadata handler', () => {
  it('lists all, some, none and unknown topics with Kafka endpoints at v1, v9 and v12', async () => {
    const c = await ReplicationCluster.start(1)
    const client = new KafkaHandlerClient(c.brokers.get(1)!)
    const one = await c.topic([1])
    const two = uniqueTopic()
    await createTopic({ admin: c.admin } as never, { name: two, num_partitions: 2, replication_factor: 1 })
    const state = await c.waitForState(one, (s) => s.leader === 1, 'a leader')
    await eventually(async () => {
      const res = await client.call(metadataHandler, kafka.MetadataApi, 12, metadataRequest([two]))
      return res?.topics[0]?.partitions.length === 2 && res.topics[0].partitions.every((p) => p.leaderId === 1)
        ? true
        : undefined
    }, 'leaders of the second topic')

    for (const version of [1, 9, 12]) {
      const all = await client.call(metadataHandler, kafka.MetadataApi, version, metadataRequest(null))
      expect(all?.brokers).toEqual([{ nodeId: 1, host: '127.0.0.1', port: advertisedKafkaPort(1), rack: null }])
      expect(all?.controllerId).toBe(1)
      if (version >= 2) expect(all?.clusterId).toMatch(/.+/)
      const names = all?.topics.map((t) => t.name) ?? []
      expect(names).toEqual(expect.arrayContaining([one, two]))

      const some = await client.call(
        metadataHandler,
        kafka.MetadataApi,
        version,
        metadataRequest([one, 'no-such-topic', 'bad name!']),
      )
      const [t1, unknown, invalid] = some?.topics ?? []
      expect([t1?.name, t1?.errorCode, t1?.isInternal]).toEqual([one, 0, false])
      expect(t1?.partitions).toEqual([
        {
          errorCode: 0,
          partitionIndex: 0,
          leaderId: 1,
          // leaderEpoch is in the answer from v7, offlineReplicas from v5 (else Kafka's defaults).
          leaderEpoch: version >= 7 ? state.leaderEpoch : -1,
          replicaNodes: [1],
          isrNodes: [1],
          offlineReplicas: [],
        },
      ])
      expect([unknown?.name, unknown?.errorCode, unknown?.partitions]).toEqual([
        'no-such-topic',
        errorId('UNKNOWN_TOPIC_OR_PARTITION'),
        [],
      ])
      expect(invalid?.errorCode).toBe(errorId('INVALID_TOPIC_EXCEPTION'))
      // Topic ids from v10; authorized operations from v8 (the cluster's until v10).
      expect(t1?.topicId.equals(ZERO_UUID)).toBe(version < 10)
      expect(t1?.topicAuthorizedOperations).toBe(NOT_REQUESTED)
      expect(some?.clusterAuthorizedOperations).toBe(NOT_REQUESTED)

      const none = await client.call(metadataHandler, kafka.MetadataApi, version, metadataRequest([]))
      expect([none?.topics, none?.brokers.length]).toEqual([[], 1])
    }
    // No topic is created on request, even with allowAutoTopicCreation.
    expect(c.state('no-such-topic')).toBeUndefined()
  })

  it('finds topics by id at v12 and answers UNKNOWN_TOPIC_ID for an id no topic has', async () => {
    const c = await ReplicationCluster.start(1)
    const client = new KafkaHandlerClient(c.brokers.get(1)!)
    const topic = await c.topic([1])
    await c.waitForState(topic, (s) => s.leader === 1, 'a leader')
    const byName = await client.call(metadataHandler, kafka.MetadataApi, 12, metadataRequest([topic]))
    const id = byName!.topics[0]!.topicId
    expect(id.length).toBe(16)
    const other = Buffer.alloc(16, 7)
    const byId = await client.call(metadataHandler, kafka.MetadataApi, 12, metadataRequest([id, other]))
    expect(byId?.topics.map((t) => [t.name, t.errorCode, t.topicId.equals(id)])).toEqual([
      [topic, 0, true],
      [null, errorId('UNKNOWN_TOPIC_ID'), false],
    ])
  })

  it('lists other brokers only with their registered Kafka endpoints, and reports offline replicas', async () => {
    const c = await ReplicationCluster.start(2)
    const topic = await c.topic([1, 2])
    await c.waitForState(topic, (s) => s.leader === 1 && s.isr.length === 2, 'full ISR')
    const broker1 = c.brokers.get(1)!
    const client = new KafkaHandlerClient(broker1)
    const alone = await client.call(metadataHandler, kafka.MetadataApi, 12, metadataRequest([topic]))
    expect(alone?.brokers.map((b) => b.nodeId)).toEqual([1])
    const cache = brokerInternals(broker1)!.context.cache
    vi.spyOn(cache, 'kafkaEndpoint').mockImplementation((id) =>
      id === 2 ? { host: 'kafka-2.example', port: 9093 } : undefined,
    )
    const both = await client.call(metadataHandler, kafka.MetadataApi, 12, metadataRequest([topic]))
    expect(both?.brokers).toEqual([
      { nodeId: 1, host: '127.0.0.1', port: advertisedKafkaPort(1), rack: null },
      { nodeId: 2, host: 'kafka-2.example', port: 9093, rack: null },
    ])
    vi.restoreAllMocks()
    await c.stop(2)
    const after = await eventually(async () => {
      const res = await client.call(metadataHandler, kafka.MetadataApi, 5, metadataRequest([topic]))
      const p = res?.topics[0]?.partitions[0]
      return p?.offlineReplicas.length === 1 ? p : undefined
    }, 'broker 2 offline')
    expect(after.offlineReplicas).toEqual([2])
  })
})

describe('Kafka ListOffsets and DeleteRecords handlers', () => {
  it('answers earliest, latest and by-time lookups at v1 and v7, and checks the leader epoch from v4', async () => {
    const c = await ReplicationCluster.start(1)
    const client = new KafkaHandlerClient(c.brokers.get(1)!)
    const topic = await c.topic([1])
    const state = await c.waitForState(topic, (s) => s.leader === 1, 'a leader')
    for (const ts of [1000n, 2000n, 3000n]) await produceAt(client, topic, batch([`at-${ts}`], { timestamp: ts }))
    const list = async (version: number, timestamp: bigint, currentLeaderEpoch = -1, name = topic) => {
      const res = await client.call(listOffsetsHandler, kafka.ListOffsetsApi, version, {
        replicaId: -1,
        isolationLevel: 1,
        topics: [{ name, partitions: [{ partitionIndex: 0, timestamp, currentLeaderEpoch }] }],
      })
      const p = res?.topics[0]?.partitions[0]
      return [p?.errorCode, p?.offset, p?.timestamp, p?.leaderEpoch]
    }
    for (const version of [1, 7]) {
      const epoch = version >= 4 ? state.leaderEpoch : -1
      expect(await list(version, -2n)).toEqual([0, 0n, -1n, epoch])
      expect(await list(version, -1n)).toEqual([0, 3n, -1n, epoch])
      expect(await list(version, 2000n)).toEqual([0, 1n, 2000n, epoch])
      expect(await list(version, 1500n)).toEqual([0, 1n, 2000n, epoch])
      expect(await list(version, 9000n)).toEqual([0, -1n, -1n, epoch])
      expect((await list(version, -1n, -1, 'no-such-topic'))[0]).toBe(errorId('UNKNOWN_TOPIC_OR_PARTITION'))
    }
    expect((await list(7, -3n))[0]).toBe(errorId('UNSUPPORTED_VERSION'))
    expect((await list(4, -1n, state.leaderEpoch + 1))[0]).toBe(errorId('UNKNOWN_LEADER_EPOCH'))
    expect((await list(7, -1n, state.leaderEpoch))[0]).toBe(0)
  })

  it('deletes records up to an offset at v0 and v2, moving the earliest offset', async () => {
    const c = await ReplicationCluster.start(1)
    const client = new KafkaHandlerClient(c.brokers.get(1)!)
    const topic = await c.topic([1])
    await c.waitForState(topic, (s) => s.leader === 1, 'a leader')
    for (const v of ['a', 'b', 'c']) await produceAt(client, topic, batch([v]))
    const del = async (version: number, offset: bigint, name = topic) => {
      const res = await client.call(deleteRecordsHandler, kafka.DeleteRecordsApi, version, {
        timeoutMs: 10_000,
        topics: [{ name, partitions: [{ partitionIndex: 0, offset }] }],
      })
      const p = res?.topics[0]?.partitions[0]
      return [p?.errorCode, p?.lowWatermark]
    }
    expect(await del(0, 1n)).toEqual([0, 1n])
    expect(await del(2, 2n)).toEqual([0, 2n])
    expect(await del(2, 99n)).toEqual([errorId('OFFSET_OUT_OF_RANGE'), -1n])
    expect((await del(0, 0n, 'no-such-topic'))[0]).toBe(errorId('UNKNOWN_TOPIC_OR_PARTITION'))
    const earliest = await client.call(listOffsetsHandler, kafka.ListOffsetsApi, 7, {
      replicaId: -1,
      topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp: -2n }] }],
    })
    expect(earliest?.topics[0]?.partitions[0]?.offset).toBe(2n)
  })
})

describe('Kafka OffsetForLeaderEpoch handler', () => {
  it('answers the end offset of the current and of an older leader epoch at v2 and v4', async () => {
    const c = await ReplicationCluster.start(2)
    const topic = await c.topic([1, 2])
    const first = await c.waitForState(topic, (s) => s.leader === 1 && s.isr.length === 2, 'full ISR')
    const onFirst = new KafkaHandlerClient(c.brokers.get(1)!)
    await produceAt(onFirst, topic, batch(['a']))
    await produceAt(onFirst, topic, batch(['b']))
    // Broker 2 follows for now: only the leader answers.
    const onSecond = new KafkaHandlerClient(c.brokers.get(2)!)
    const fromFollower = await onSecond.call(offsetForLeaderEpochHandler, kafka.OffsetForLeaderEpochApi, 4, {
      replicaId: -1,
      topics: [{ topic, partitions: [{ partition: 0, leaderEpoch: first.leaderEpoch }] }],
    })
    expect(fromFollower?.topics[0]?.partitions[0]?.errorCode).toBe(errorId('NOT_LEADER_OR_FOLLOWER'))
    await c.stop(1)
    const second = await c.waitForState(topic, (s) => s.leader === 2, 'broker 2 leads')
    expect(second.leaderEpoch).toBeGreaterThan(first.leaderEpoch)
    const client = onSecond
    await eventually(async () => {
      const res = await client.call(produceHandler, kafka.ProduceApi, 9, {
        acks: 1,
        timeoutMs: 5000,
        topicData: [{ name: topic, partitionData: [{ index: 0, records: batch(['c']) }] }],
      })
      return res?.responses[0]?.partitionResponses[0]?.errorCode === 0 ? true : undefined
    }, 'the new leader takes writes')

    const ask = async (version: number, leaderEpoch: number, currentLeaderEpoch = -1, name = topic) => {
      const res = await client.call(offsetForLeaderEpochHandler, kafka.OffsetForLeaderEpochApi, version, {
        replicaId: -1,
        topics: [{ topic: name, partitions: [{ partition: 0, currentLeaderEpoch, leaderEpoch }] }],
      })
      const p = res?.topics[0]?.partitions[0]
      return [p?.errorCode, p?.leaderEpoch, p?.endOffset]
    }
    for (const version of [2, 4]) {
      // The older epoch ended where the new leader's epoch started: after the two first records.
      expect(await ask(version, first.leaderEpoch)).toEqual([0, first.leaderEpoch, 2n])
      expect(await ask(version, second.leaderEpoch, second.leaderEpoch)).toEqual([0, second.leaderEpoch, 3n])
      expect(await ask(version, second.leaderEpoch + 5)).toEqual([0, -1, -1n])
      expect((await ask(version, first.leaderEpoch, first.leaderEpoch))[0]).toBe(errorId('FENCED_LEADER_EPOCH'))
      expect((await ask(version, 0, -1, 'no-such-topic'))[0]).toBe(errorId('UNKNOWN_TOPIC_OR_PARTITION'))
    }
  })
})
