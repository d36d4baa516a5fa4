import { existsSync } from 'node:fs'
import path from 'node:path'
import * as grpc from '@grpc/grpc-js'
import { describe, expect, it } from 'vitest'
import { OFF_CRC, OFF_MAGIC, decodeRecordBatches, errorId, toBigInt, type wire } from '@sluice/protocol'
import {
  BrokerTestClient,
  batch,
  createTopic,
  eventually,
  onlyPartition,
  startTestCluster,
  uniqueTopic,
  unaryCall,
  waitForLeaders,
} from '../../src/broker/harness.js'

async function singleBrokerTopic(configs: Record<string, string> = {}, partitions = 1) {
  const cluster = await startTestCluster(1)
  const broker = cluster.brokers[0]!
  const client = new BrokerTestClient(broker.endpoint)
  const topic = uniqueTopic()
  await createTopic(cluster, { name: topic, num_partitions: partitions, replication_factor: 1, configs })
  await waitForLeaders(client, topic, partitions)
  return { cluster, broker, client, topic }
}

function produceOne(client: BrokerTestClient, topic: string, records: Buffer, partition = 0, acks = 1) {
  return client.produce({ acks, topics: [{ topic, partitions: [{ partition, records }] }] })
}

function fetchOne(
  client: BrokerTestClient,
  topic: string,
  offset: bigint,
  more: Partial<wire.FetchRequest> = {},
  partition = 0,
) {
  return client.fetch({
    ...more,
    topics: [
      {
        topic,
        partitions: [
          { partition, fetch_offset: offset.toString(), partition_max_bytes: 1 << 20, current_leader_epoch: -1 },
        ],
      },
    ],
  })
}

async function latestOffset(client: BrokerTestClient, topic: string, partition = 0): Promise<bigint> {
  const res = await client.listOffsets({
    topics: [{ topic, partitions: [{ partition, timestamp: '-1', current_leader_epoch: -1 }] }],
  })
  const p = onlyPartition(res)
  expect(p.error_code).toBe(0)
  return toBigInt(p.offset)
}

function values(records: Buffer): string[] {
  return decodeRecordBatches(records).flatMap((b) => b.records.map((r) => r.value?.toString() ?? ''))
}

describe('broker data path', () => {
  it('appends produced batches and fetches them back with offsets and the high watermark', async () => {
    const { client, topic } = await singleBrokerTopic()
    const r1 = onlyPartition(await produceOne(client, topic, batch(['a', 'b'])))
    expect([r1.error_code, r1.base_offset]).toEqual([0, '0'])
    const r2 = onlyPartition(
      await client.produce({ acks: -1, topics: [{ topic, partitions: [{ partition: 0, records: batch(['c']) }] }] }),
    )
    expect([r2.error_code, r2.base_offset]).toEqual([0, '2'])

    const f = onlyPartition(await fetchOne(client, topic, 0n))
    expect(f.error_code).toBe(0)
    expect([f.high_watermark, f.log_start_offset, f.log_end_offset]).toEqual(['3', '0', '3'])
    const batches = decodeRecordBatches(f.records)
    expect(batches.flatMap((b) => b.records.map((r) => [r.offset, r.value?.toString()]))).toEqual([
      [0n, 'a'],
      [1n, 'b'],
      [2n, 'c'],
    ])
    const fromMiddle = onlyPartition(await fetchOne(client, topic, 2n))
    expect(values(fromMiddle.records)).toEqual(['c'])
    expect(await latestOffset(client, topic)).toBe(3n)
  })

  it('answers every one of many in-flight produce requests on one stream exactly once', async () => {
    const { client, topic } = await singleBrokerTopic({}, 2)
    const n = 40 // fewer than the per-stream bound; the session test goes past it
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        client.produce({ acks: 1, topics: [{ topic, partitions: [{ partition: i % 2, records: batch([`v${i}`]) }] }] }),
      ),
    )
    expect(new Set(client.answered).size).toBe(n)
    expect(client.answered).toHaveLength(n)
    for (const partition of [0, 1]) {
      const offsets = answers
        .map((a) => onlyPartition(a))
        .filter((p) => p.partition === partition)
        .map((p) => Number(p.base_offset))
      expect(offsets.sort((a, b) => a - b)).toEqual(Array.from({ length: n / 2 }, (_, i) => i))
    }
  })

  it('appends acks=0 produces without answering them', async () => {
    const { client, topic } = await singleBrokerTopic()
    client.produceNoAck({ topics: [{ topic, partitions: [{ partition: 0, records: batch(['silent']) }] }] })
    const r = onlyPartition(await produceOne(client, topic, batch(['loud'])))
    expect(r.base_offset).toBe('1')
    expect(client.answered).toHaveLength(1)
    expect(values(onlyPartition(await fetchOne(client, topic, 0n)).records)).toEqual(['silent', 'loud'])
  })

  it('long-polls: a parked fetch returns when a produce arrives, without blocking the stream', async () => {
    const { client, topic } = await singleBrokerTopic()
    let parkedDone = false
    // max_wait is far beyond the test timeout: only the produce can complete this fetch.
    const parked = fetchOne(client, topic, 0n, { min_bytes: 1, max_wait_ms: 600_000 }).then((r) => {
      parkedDone = true
      return r
    })
    // A later request on the same stream is answered while the first one waits.
    const quick = onlyPartition(await fetchOne(client, topic, 0n))
    expect([quick.error_code, quick.records.length]).toEqual([0, 0])
    expect(parkedDone).toBe(false)
    await produceOne(client, topic, batch(['wake']))
    const woken = onlyPartition(await parked)
    expect(woken.error_code).toBe(0)
    expect(values(woken.records)).toEqual(['wake'])
  })

  it('answers an unsatisfied long poll with no records when max_wait_ms passes', async () => {
    const { client, topic } = await singleBrokerTopic()
    await produceOne(client, topic, batch(['x']))
    const r = onlyPartition(await fetchOne(client, topic, 1n, { min_bytes: 1, max_wait_ms: 150 }))
    expect([r.error_code, r.records.length, r.high_watermark]).toEqual([0, 0, '1'])
  })

  it('honours max_bytes across partitions but always returns the first batch (KIP-74)', async () => {
    const { client, topic } = await singleBrokerTopic({}, 2)
    const big = batch(['y'.repeat(2000)])
    await produceOne(client, topic, big, 0)
    await produceOne(client, topic, big, 1)
    const part = (partition: number) => ({
      partition,
      fetch_offset: '0',
      partition_max_bytes: 100,
      current_leader_epoch: -1,
    })
    const res = await client.fetch({ max_bytes: 100, topics: [{ topic, partitions: [part(0), part(1)] }] })
    const [p0, p1] = res.topics[0]!.partitions
    expect(p0?.records.length).toBe(big.length)
    expect(p1?.error_code).toBe(0)
    expect(p1?.records.length).toBe(0)
  })

  it('answers ListOffsets for earliest, latest and a timestamp', async () => {
    const { client, topic } = await singleBrokerTopic()
    await produceOne(client, topic, batch(['old'], { timestamp: 1000n }))
    await produceOne(client, topic, batch(['new'], { timestamp: 5000n }))
    const ask = async (timestamp: string) =>
      onlyPartition(
        await client.listOffsets({
          topics: [{ topic, partitions: [{ partition: 0, timestamp, current_leader_epoch: -1 }] }],
        }),
      )
    expect((await ask('-2')).offset).toBe('0')
    expect((await ask('-1')).offset).toBe('2')
    expect((await ask('2000')).offset).toBe('1')
    expect((await ask('9000')).offset).toBe('-1')
    expect((await ask('-3')).error_code).toBe(errorId('UNSUPPORTED_VERSION'))
  })
})

describe('broker bad input', () => {
  it('rejects each bad partition with its typed error, appends nothing for it, and keeps serving', async () => {
    const { client, topic } = await singleBrokerTopic({ 'max.message.bytes': '1000' })
    await produceOne(client, topic, batch(['seed']))
    const good = batch(['ok'])
    const badCrc = batch(['crc'])
    badCrc[badCrc.length - 1]! ^= 0xff
    const badMagic = batch(['magic'])
    badMagic.writeInt8(1, OFF_MAGIC)
    const truncated = batch(['truncated']).subarray(0, 40)
    const tooLarge = batch(['z'.repeat(1200)])
    const badCrcHeader = batch(['hdr'])
    badCrcHeader.writeUInt32BE(0, OFF_CRC)
    const cases: Array<[string, Buffer, string]> = [
      ['bad crc', badCrc, 'CORRUPT_MESSAGE'],
      ['bad crc field', badCrcHeader, 'CORRUPT_MESSAGE'],
      ['bad magic', badMagic, 'CORRUPT_MESSAGE'],
      ['truncated', truncated, 'CORRUPT_MESSAGE'],
      ['empty', Buffer.alloc(0), 'INVALID_BATCH'],
      ['good then truncated', Buffer.concat([good, truncated]), 'CORRUPT_MESSAGE'],
      ['too large', tooLarge, 'MESSAGE_TOO_LARGE'],
    ]
    for (const [name, records, code] of cases) {
      const r = onlyPartition(await produceOne(client, topic, records))
      expect([name, r.error_code]).toEqual([name, errorId(code as 'CORRUPT_MESSAGE')])
      expect(r.error_message).not.toBe('')
    }
    expect(await latestOffset(client, topic)).toBe(1n)

    // One bad partition does not hold back a good one in the same request.
    const mixed = await client.produce({
      acks: 1,
      topics: [
        {
          topic,
          partitions: [
            { partition: 0, records: good },
            { partition: 7, records: good },
          ],
        },
        { topic: 'no-such-topic', partitions: [{ partition: 0, records: good }] },
      ],
    })
    expect(mixed.topics.map((t) => t.partitions.map((p) => [p.partition, p.error_code]))).toEqual([
      [
        [0, 0],
        [7, errorId('UNKNOWN_TOPIC_OR_PARTITION')],
      ],
      [[0, errorId('UNKNOWN_TOPIC_OR_PARTITION')]],
    ])
    const badAcks = onlyPartition(await produceOne(client, topic, good, 0, 2))
    expect(badAcks.error_code).toBe(errorId('INVALID_REQUIRED_ACKS'))
    // No transactions yet: a transactional request is refused whole (docs/decisions.md).
    const transactional = await client.produce({
      acks: 1,
      transactional_id: 'tx-1',
      topics: [{ topic, partitions: [{ partition: 0, records: good }] }],
    })
    expect(onlyPartition(transactional).error_code).toBe(errorId('TRANSACTIONAL_ID_AUTHORIZATION_FAILED'))
    expect(await latestOffset(client, topic)).toBe(2n)
    expect(values(onlyPartition(await fetchOne(client, topic, 0n)).records)).toEqual(['seed', 'ok'])
  })

  it('answers fetches outside the log with OFFSET_OUT_OF_RANGE and the valid range', async () => {
    const { client, topic } = await singleBrokerTopic()
    await produceOne(client, topic, batch(['a', 'b']))
    for (const offset of [3n, 100n, -1n]) {
      const r = onlyPartition(await fetchOne(client, topic, offset))
      expect(r.error_code).toBe(errorId('OFFSET_OUT_OF_RANGE'))
      expect([r.log_start_offset, r.log_end_offset, r.high_watermark]).toEqual(['0', '2', '2'])
      expect(r.records.length).toBe(0)
    }
    const unknown = onlyPartition(await fetchOne(client, 'missing-topic', 0n, { min_bytes: 1, max_wait_ms: 10_000 }))
    expect(unknown.error_code).toBe(errorId('UNKNOWN_TOPIC_OR_PARTITION'))
    const fenced = onlyPartition(
      await client.fetch({
        topics: [
          {
            topic,
            partitions: [{ partition: 0, fetch_offset: '0', partition_max_bytes: 1000, current_leader_epoch: 99 }],
          },
        ],
      }),
    )
    expect(fenced.error_code).toBe(errorId('UNKNOWN_LEADER_EPOCH'))
  })

  it('answers per topic in Metadata and survives malformed messages and unknown methods', async () => {
    const { client, topic, broker } = await singleBrokerTopic()
    const md = await client.metadata({ topics: [topic, 'nope'] })
    expect(md.topics.map((t) => [t.name, t.error_code])).toEqual([
      [topic, 0],
      ['nope', errorId('UNKNOWN_TOPIC_OR_PARTITION')],
    ])
    expect(md.brokers.map((b) => b.port)).toEqual([broker.port])

    const raw = new grpc.Client(broker.endpoint, grpc.credentials.createInsecure())
    const garbage = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x01])
    const call = (method: string) =>
      new Promise<grpc.ServiceError | null>((resolve) => {
        raw.makeUnaryRequest(
          method,
          (b: Buffer) => b,
          (b: Buffer) => b,
          garbage,
          (err) => resolve(err),
        )
      })
    const malformed = await call('/sluice.v1.Broker/ListOffsets')
    expect(malformed?.code).toBeDefined()
    expect((await call('/sluice.v1.Broker/NoSuchMethod'))?.code).toBe(grpc.status.UNIMPLEMENTED)
    raw.close()
    const dr = await unaryCall<wire.DeleteRecordsRequest, wire.DeleteRecordsResponse__Output>(
      (r, cb) => client.raw.DeleteRecords(r, cb),
      { topics: [{ topic, partitions: [{ partition: 0, offset: '1' }] }] },
    )
    // The topic is empty: offset 1 is above its high watermark (DeleteRecords itself: log-lifecycle.int.test.ts).
    expect(onlyPartition(dr).error_code).toBe(errorId('OFFSET_OUT_OF_RANGE'))
    expect(onlyPartition(await produceOne(client, topic, batch(['still here']))).error_code).toBe(0)
  })
})

describe('broker cluster behaviour', () => {
  it('refuses produce and fetch for partitions it does not lead', async () => {
    const cluster = await startTestCluster(2)
    const [b1, b2] = cluster.brokers
    const c1 = new BrokerTestClient(b1!.endpoint)
    const c2 = new BrokerTestClient(b2!.endpoint)
    const topic = uniqueTopic()
    await createTopic(cluster, {
      name: topic,
      num_partitions: -1,
      replication_factor: -1,
      assignments: [{ partition: 0, replicas: [2] }],
    })
    const t = await waitForLeaders(c1, topic, 1)
    expect(t.partitions[0]?.leader).toBe(2)
    const r = onlyPartition(await produceOne(c1, topic, batch(['wrong broker'])))
    expect(r.error_code).toBe(errorId('NOT_LEADER_OR_FOLLOWER'))
    expect(onlyPartition(await fetchOne(c1, topic, 0n)).error_code).toBe(errorId('NOT_LEADER_OR_FOLLOWER'))
    await waitForLeaders(c2, topic, 1)
    expect(await latestOffset(c2, topic)).toBe(0n)
    expect(onlyPartition(await produceOne(c2, topic, batch(['right broker']))).error_code).toBe(0)
    expect(existsSync(path.join(cluster.brokerDataDir(1), `${topic}-0`))).toBe(false)
  })

  it('keeps its data across a restart from the same data dir', async () => {
    const cluster = await startTestCluster(1)
    let client = new BrokerTestClient(cluster.brokers[0]!.endpoint)
    const topic = uniqueTopic()
    await createTopic(cluster, { name: topic, num_partitions: 1, replication_factor: 1 })
    await waitForLeaders(client, topic, 1)
    await produceOne(client, topic, batch(['before', 'restart']))
    client.close()
    await cluster.brokers.pop()!.stop()

    const again = await cluster.startBroker(1)
    client = new BrokerTestClient(again.endpoint)
    await waitForLeaders(client, topic, 1)
    const f = await eventually(async () => {
      const p = onlyPartition(await fetchOne(client, topic, 0n))
      return p.error_code === 0 ? p : undefined
    }, 'the restarted broker to lead again')
    expect(values(f.records)).toEqual(['before', 'restart'])
    expect(onlyPartition(await produceOne(client, topic, batch(['after']))).base_offset).toBe('2')
  })

  it('deletes the log when the topic is deleted', async () => {
    const { cluster, client, topic } = await singleBrokerTopic()
    await produceOne(client, topic, batch(['doomed']))
    const dir = path.join(cluster.brokerDataDir(1), `${topic}-0`)
    expect(existsSync(dir)).toBe(true)
    const res = await unaryCall<wire.DeleteTopicsRequest, wire.DeleteTopicsResponse__Output>(
      (r, cb) => cluster.admin.DeleteTopics(r, cb),
      { names: [topic], timeout_ms: 10_000 },
    )
    expect(res.topics[0]?.error_code).toBe(0)
    await eventually(async () => (existsSync(dir) ? undefined : true), 'the log dir to go')
    // While the delete is being applied the answer is the retriable NOT_LEADER_OR_FOLLOWER.
    await eventually(async () => {
      const r = onlyPartition(await produceOne(client, topic, batch(['late'])))
      expect([errorId('NOT_LEADER_OR_FOLLOWER'), errorId('UNKNOWN_TOPIC_OR_PARTITION')]).toContain(r.error_code)
      return r.error_code === errorId('UNKNOWN_TOPIC_OR_PARTITION') ? true : undefined
    }, 'the topic to be unknown')
    expect(existsSync(dir)).toBe(false)
  })
})
