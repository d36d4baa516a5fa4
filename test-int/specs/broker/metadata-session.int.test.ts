import path from 'node:path'
import * as grpc from '@grpc/grpc-js'
import { describe, expect, it, onTestFinished } from 'vitest'
import { startMetadataServer } from '@sluice/metadata'
import { GRPC_CHANNEL_OPTIONS, decodeRecordBatches, errorId, loadSluiceProto, type wire } from '@sluice/protocol'
import { brokerInternals, startBroker } from '@sluice/broker/internal'
import {
  BrokerTestClient,
  batch,
  createTopic,
  eventually,
  onlyPartition,
  startTestCluster,
  tempDir,
  unaryCall,
  uniqueTopic,
  waitForLeaders,
  type TestCluster,
} from '../../src/broker/harness.js'

function produce(client: BrokerTestClient, topic: string, values: string[], acks = 1) {
  return client.produce({ acks, topics: [{ topic, partitions: [{ partition: 0, records: batch(values) }] }] })
}

async function topicOn(cluster: TestCluster, configs: Record<string, string> = {}) {
  const client = new BrokerTestClient(cluster.brokers[0]!.endpoint)
  const topic = uniqueTopic()
  await createTopic(cluster, { name: topic, num_partitions: 1, replication_factor: 1, configs })
  await waitForLeaders(client, topic, 1)
  return { client, topic }
}

describe('broker metadata session', () => {
  it('keeps serving reads and acks=all writes while the metadata service is down and registers again with a new epoch', async () => {
    const dir = await tempDir('session')
    const metaDir = path.join(dir, 'metadata')
    let metadata = await startMetadataServer({ host: '127.0.0.1', port: 0, dataDir: metaDir })
    const port = metadata.port
    onTestFinished(() => metadata.stop())
    const broker = await startBroker({
      brokerId: 1,
      host: '127.0.0.1',
      port: 0,
      dataDir: path.join(dir, 'broker'),
      metadataEndpoints: [metadata.endpoint],
      heartbeatIntervalMs: 200,
      sessionTimeoutMs: 3000,
    })
    onTestFinished(() => broker.stop())
    const session = brokerInternals(broker)!.session
    const firstEpoch = session.brokerEpoch
    expect(firstEpoch).toBeDefined()

    const client = new BrokerTestClient(broker.endpoint)
    const topic = uniqueTopic()
    const admin = new (loadSluiceProto().sluice.v1.Metadata)(
      metadata.endpoint,
      grpc.credentials.createInsecure(),
      GRPC_CHANNEL_OPTIONS,
    )
    onTestFinished(() => admin.close())
    await new Promise((resolve, reject) =>
      admin.CreateTopics({ topics: [{ name: topic, num_partitions: 1, replication_factor: 1 }] }, (err, res) =>
        err !== null ? reject(err) : resolve(res),
      ),
    )
    await waitForLeaders(client, topic, 1)
    expect(onlyPartition(await produce(client, topic, ['one'])).error_code).toBe(0)

    await metadata.stop()
    await eventually(async () => (session.brokerEpoch === undefined ? true : undefined), 'the session to drop')
    // Reads go on from the last known metadata; acks=1 writes are fenced (retriable
    // NOT_LEADER_OR_FOLLOWER) until the controller confirms the leadership again, while acks=all
    // writes go on: the ISR decides what they may acknowledge (docs/replication.md).
    const fenced = onlyPartition(await produce(client, topic, ['two']))
    expect(fenced.error_code).toBe(errorId('NOT_LEADER_OR_FOLLOWER'))
    const all = onlyPartition(await produce(client, topic, ['two-all'], -1))
    expect([all.error_code, all.base_offset]).toEqual([0, '1'])
    const f = onlyPartition(
      await client.fetch({
        topics: [
          {
            topic,
            partitions: [{ partition: 0, fetch_offset: '0', partition_max_bytes: 1 << 20, current_leader_epoch: -1 }],
          },
        ],
      }),
    )
    expect(decodeRecordBatches(f.records).flatMap((b) => b.records.map((r) => r.value?.toString()))).toEqual([
      'one',
      'two-all',
    ])

    metadata = await startMetadataServer({ host: '127.0.0.1', port, dataDir: metaDir })
    const secondEpoch = await eventually(async () => session.brokerEpoch, 'the broker to register again', 15_000)
    expect(secondEpoch).toBeGreaterThan(firstEpoch!)
    await waitForLeaders(client, topic, 1)
    const after = await eventually(async () => {
      const r = onlyPartition(await produce(client, topic, ['three']))
      return r.error_code === 0 ? r : undefined
    }, 'produce after re-registration')
    expect(after.base_offset).toBe('2')
  })
})

describe('controlled shutdown', () => {
  it('moves every leadership to another in-sync replica and keeps the broker out of the ISRs before it stops', async () => {
    const cluster = await startTestCluster(3)
    const client = new BrokerTestClient(cluster.brokers[0]!.endpoint)
    const topic = uniqueTopic()
    await createTopic(cluster, { name: topic, num_partitions: 6, replication_factor: 3, configs: {} })
    const single = uniqueTopic()
    await createTopic(cluster, {
      name: single,
      num_partitions: -1,
      replication_factor: -1,
      assignments: [{ partition: 0, replicas: [1] }],
      configs: {},
    })
    await waitForLeaders(client, topic, 6)
    await waitForLeaders(client, single, 1)
    const cache = brokerInternals(cluster.brokers[1]!)!.context.cache
    const states = (): Array<{ leader: number; leaderEpoch: number; isr: readonly number[] }> =>
      Array.from({ length: 6 }, (_, p) => cache.partition(topic, p)!)
    await eventually(async () => (states().every((s) => s.isr.length === 3) ? true : undefined), 'full ISRs')
    const before = states()
    expect(before.some((s) => s.leader === 1)).toBe(true)

    const remaining = await brokerInternals(cluster.brokers[0]!)!.session.controlledShutdown(5000)
    // Only the RF 1 partition could not move; it stays led by broker 1 until broker 1 is gone.
    expect(remaining).toBe(1)
    // The controller answered once the new states were committed; broker 2 learns them from the
    // controller's next push, so its cache is read once that push has been applied.
    const after = await eventually(async () => {
      const s = states()
      return s.every((x) => !x.isr.includes(1) && x.leader !== 1) ? s : undefined
    }, 'broker 2 to apply the states the controlled shutdown committed')
    for (let p = 0; p < 6; p++) {
      expect(after[p]!.isr).not.toContain(1)
      expect(after[p]!.leader).toBeGreaterThanOrEqual(2)
      expect(after[p]!.leaderEpoch).toBe(before[p]!.leaderEpoch + (before[p]!.leader === 1 ? 1 : 0))
    }
    expect(cache.partition(single, 0)!.leader).toBe(1)
    // A leader that sees broker 1 caught up asks to add it back: the controller refuses.
    const p0 = after[0]!
    const leader = cluster.brokers[p0.leader - 1]!
    const res = await unaryCall<wire.AlterPartitionRequest, wire.AlterPartitionResponse__Output>(
      (r, cb) => cluster.admin.AlterPartition(r, cb),
      {
        broker_id: p0.leader,
        broker_epoch: brokerInternals(leader)!.session.brokerEpoch!.toString(),
        topic,
        partition: 0,
        leader_epoch: p0.leaderEpoch,
        partition_epoch: cache.partition(topic, 0)!.partitionEpoch,
        new_isr: [...p0.isr, 1],
      },
    )
    expect(res.error_code).toBe(errorId('INELIGIBLE_REPLICA'))

    // Once it has stopped, acks=all writes need only the remaining ISR at once: the stopped
    // broker, caught up a moment ago, does not hold the high watermark for replicaLagMaxMs (30 s).
    await cluster.brokers[0]!.stop()
    const leaderClient = new BrokerTestClient(leader.endpoint)
    const r = onlyPartition(
      await leaderClient.produce({
        acks: -1,
        timeout_ms: 10_000,
        topics: [{ topic, partitions: [{ partition: 0, records: batch(['after']) }] }],
      }),
    )
    expect(r.error_code).toBe(0)
  })
})

describe('broker produce details', () => {
  it('pauses and resumes a stream with more requests in flight than its bound, answering each once', async () => {
    const cluster = await startTestCluster(1)
    const { client, topic } = await topicOn(cluster)
    const n = 200
    const answers = await Promise.all(Array.from({ length: n }, (_, i) => produce(client, topic, [`v${i}`])))
    expect(new Set(client.answered).size).toBe(n)
    expect(answers.map((a) => Number(onlyPartition(a).base_offset)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: n }, (_, i) => i),
    )
  })

  it('stamps LogAppendTime batches with the broker clock and a valid CRC', async () => {
    const cluster = await startTestCluster(1)
    const { client, topic } = await topicOn(cluster, { 'message.timestamp.type': 'LogAppendTime' })
    const before = BigInt(Date.now())
    const r = onlyPartition(
      await client.produce({
        acks: 1,
        topics: [{ topic, partitions: [{ partition: 0, records: batch(['t'], { timestamp: 42n }) }] }],
      }),
    )
    expect(r.error_code).toBe(0)
    expect(BigInt(r.log_append_time_ms)).toBeGreaterThanOrEqual(before)
    const f = onlyPartition(
      await client.fetch({
        topics: [
          {
            topic,
            partitions: [{ partition: 0, fetch_offset: '0', partition_max_bytes: 1 << 20, current_leader_epoch: -1 }],
          },
        ],
      }),
    )
    const [decoded] = decodeRecordBatches(f.records) // verifies the CRC
    expect(decoded?.header.maxTimestamp).toBe(BigInt(r.log_append_time_ms))
    expect((decoded!.header.attributes & 0x08) !== 0).toBe(true)
  })

  it('rejects acks=-1 with NOT_ENOUGH_REPLICAS when the ISR is below min.insync.replicas, appending nothing', async () => {
    const cluster = await startTestCluster(1)
    const { client, topic } = await topicOn(cluster, { 'min.insync.replicas': '2' })
    expect(onlyPartition(await produce(client, topic, ['x'], -1)).error_code).toBe(errorId('NOT_ENOUGH_REPLICAS'))
    expect(onlyPartition(await produce(client, topic, ['y'], 1)).base_offset).toBe('0')
  })

  it('drops a parked fetch when its stream is cancelled', async () => {
    const cluster = await startTestCluster(1)
    const { topic } = await topicOn(cluster)
    const purgatory = brokerInternals(cluster.brokers[0]!)!.context.purgatory
    const raw = new (loadSluiceProto().sluice.v1.Broker)(
      cluster.brokers[0]!.endpoint,
      grpc.credentials.createInsecure(),
      GRPC_CHANNEL_OPTIONS,
    )
    onTestFinished(() => raw.close())
    const stream = raw.Fetch()
    stream.on('error', () => undefined)
    stream.write({
      correlation_id: '1',
      replica_id: -1,
      max_wait_ms: 60_000,
      min_bytes: 1,
      max_bytes: 1000,
      topics: [
        {
          topic,
          partitions: [{ partition: 0, fetch_offset: '0', partition_max_bytes: 1000, current_leader_epoch: -1 }],
        },
      ],
    })
    await eventually(async () => (purgatory.size === 1 ? true : undefined), 'the fetch to park')
    stream.cancel()
    await eventually(
      async () => (purgatory.size === 0 && purgatory.watchedPartitionCount === 0 ? true : undefined),
      'the parked fetch to go',
    )
  })

  it('applies AlterConfigs to the produce limit and to the hosted log', async () => {
    const cluster = await startTestCluster(1)
    const { client, topic } = await topicOn(cluster)
    const log = brokerInternals(cluster.brokers[0]!)!.logManager.getLog(topic, 0)!
    expect(onlyPartition(await produce(client, topic, ['m'.repeat(3000)])).error_code).toBe(0)
    await new Promise((resolve, reject) =>
      cluster.admin.AlterConfigs(
        {
          resources: [
            {
              topic,
              configs: [
                { name: 'max.message.bytes', value: '2000', op: 'set' },
                { name: 'segment.bytes', value: '65536', op: 'set' },
              ],
            },
          ],
        },
        (err, res) => (err !== null ? reject(err) : resolve(res)),
      ),
    )
    await eventually(
      async () => (log.currentConfig.segmentBytes === 65536 ? true : undefined),
      'the log to get the new config',
    )
    expect(onlyPartition(await produce(client, topic, ['m'.repeat(3000)])).error_code).toBe(
      errorId('MESSAGE_TOO_LARGE'),
    )
    expect(onlyPartition(await produce(client, topic, ['small'])).base_offset).toBe('1')
  })

  it('accepts a multi-megabyte produce and returns it in one fetch', async () => {
    const cluster = await startTestCluster(1)
    const { client, topic } = await topicOn(cluster, { 'max.message.bytes': String(8 << 20) })
    const big = batch(Array.from({ length: 64 }, (_, i) => `${i}:${'p'.repeat(64 * 1024)}`))
    expect(big.length).toBeGreaterThan(4 << 20)
    const r = onlyPartition(
      await client.produce({ acks: 1, topics: [{ topic, partitions: [{ partition: 0, records: big }] }] }),
    )
    expect(r.error_code).toBe(0)
    const f = onlyPartition(
      await client.fetch({
        max_bytes: 16 << 20,
        topics: [
          {
            topic,
            partitions: [{ partition: 0, fetch_offset: '0', partition_max_bytes: 16 << 20, current_leader_epoch: -1 }],
          },
        ],
      }),
    )
    expect(f.records.length).toBe(big.length)
    expect(decodeRecordBatches(f.records)[0]?.records).toHaveLength(64)
  })
})
