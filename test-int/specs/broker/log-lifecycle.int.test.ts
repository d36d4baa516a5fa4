import { describe, expect, it } from 'vitest'
import { decodeRecordBatches, encodeRecordBatch, errorId, toBigInt, type wire } from '@sluice/protocol'
import {
  BrokerTestClient,
  batch,
  createTopic,
  eventually,
  onlyPartition,
  startTestCluster,
  unaryCall,
  uniqueTopic,
  waitForLeaders,
} from '../../src/broker/harness.js'
import { brokerInternals } from '@sluice/broker/internal'

const TEN_MINUTES_AGO = (): bigint => BigInt(Date.now() - 10 * 60_000)

async function topicOn(configs: Record<string, string>) {
  const cluster = await startTestCluster(1, { logRetentionCheckIntervalMs: 50, fileDeleteDelayMs: 0 })
  const broker = cluster.brokers[0]!
  const client = new BrokerTestClient(broker.endpoint)
  const topic = uniqueTopic()
  await createTopic(cluster, { name: topic, num_partitions: 1, replication_factor: 1, configs })
  await waitForLeaders(client, topic, 1)
  const log = () => brokerInternals(broker)!.logManager.getLog(topic, 0)!
  return { cluster, broker, client, topic, log }
}

async function produce(
  client: BrokerTestClient,
  topic: string,
  records: Buffer,
): Promise<wire.PartitionProduceResponse__Output> {
  const r = onlyPartition(
    await client.produce({ acks: -1, topics: [{ topic, partitions: [{ partition: 0, records }] }] }),
  )
  expect(r.error_code).toBe(0)
  return r
}

async function listOffset(client: BrokerTestClient, topic: string, timestamp: '-1' | '-2'): Promise<bigint> {
  const p = onlyPartition(
    await client.listOffsets({
      topics: [{ topic, partitions: [{ partition: 0, timestamp, current_leader_epoch: -1 }] }],
    }),
  )
  expect(p.error_code).toBe(0)
  return toBigInt(p.offset)
}

function fetchAt(client: BrokerTestClient, topic: string, offset: bigint) {
  return client.fetch({
    topics: [
      {
        topic,
        partitions: [
          { partition: 0, fetch_offset: offset.toString(), partition_max_bytes: 1 << 20, current_leader_epoch: -1 },
        ],
      },
    ],
  })
}

async function alterConfig(
  cluster: Awaited<ReturnType<typeof startTestCluster>>,
  topic: string,
  configs: Record<string, string>,
): Promise<void> {
  const res = await unaryCall<wire.AlterConfigsRequest, wire.AlterConfigsResponse__Output>(
    (r, cb) => cluster.admin.AlterConfigs(r, cb),
    {
      validate_only: false,
      resources: [{ topic, configs: Object.entries(configs).map(([name, value]) => ({ name, value, op: 'set' })) }],
    },
  )
  expect(res.resources[0]!.error_code).toBe(0)
}

function deleteRecords(client: BrokerTestClient, topic: string, offset: string, partition = 0) {
  return unaryCall<wire.DeleteRecordsRequest, wire.DeleteRecordsResponse__Output>(
    (r, cb) => client.raw.DeleteRecords(r, cb),
    { timeout_ms: 5000, topics: [{ topic, partitions: [{ partition, offset }] }] },
  )
}

describe('log lifecycle on a running broker', () => {
  it('retention deletes expired segments on schedule; ListOffsets and Fetch report the new log start', async () => {
    const { client, topic, log } = await topicOn({ 'retention.ms': '60000', 'segment.bytes': '600' })
    for (let i = 0; i < 12; i++)
      await produce(client, topic, batch([`old-${i}`, 'x'.repeat(60)], { timestamp: TEN_MINUTES_AGO() }))
    const end = log().logEndOffset
    expect(end).toBe(24n)
    await eventually(
      async () => ((await listOffset(client, topic, '-2')) === end ? true : undefined),
      'retention to delete everything',
    )
    const oor = onlyPartition(await fetchAt(client, topic, 0n))
    expect(oor.error_code).toBe(errorId('OFFSET_OUT_OF_RANGE'))
    expect(oor.log_start_offset).toBe(end.toString())
    const fresh = await produce(client, topic, batch(['fresh']))
    expect(fresh.base_offset).toBe(end.toString())
    const f = onlyPartition(await fetchAt(client, topic, end))
    expect([f.error_code, f.log_start_offset]).toEqual([0, end.toString()])
    expect(decodeRecordBatches(f.records).flatMap((b) => b.records.map((r) => r.value?.toString()))).toEqual(['fresh'])
  })

  it('DeleteRecords moves the log start on the leader and answers bad requests per partition', async () => {
    const { client, topic } = await topicOn({ 'segment.bytes': '500' })
    for (let i = 0; i < 10; i++) await produce(client, topic, batch([`v${i}`]))
    const ok = onlyPartition(await deleteRecords(client, topic, '4'))
    expect([ok.error_code, ok.low_watermark]).toEqual([0, '4'])
    expect(await listOffset(client, topic, '-2')).toBe(4n)
    expect(onlyPartition(await fetchAt(client, topic, 3n)).error_code).toBe(errorId('OFFSET_OUT_OF_RANGE'))
    const f = onlyPartition(await fetchAt(client, topic, 4n))
    expect(decodeRecordBatches(f.records).flatMap((b) => b.records.map((r) => r.value?.toString()))[0]).toBe('v4')
    expect(onlyPartition(await deleteRecords(client, topic, '11')).error_code).toBe(errorId('OFFSET_OUT_OF_RANGE'))
    expect(onlyPartition(await deleteRecords(client, topic, '-7')).error_code).toBe(errorId('OFFSET_OUT_OF_RANGE'))
    expect(onlyPartition(await deleteRecords(client, topic, '2')).low_watermark).toBe('4') // never backwards
    expect(onlyPartition(await deleteRecords(client, topic, '0', 3)).error_code).toBe(
      errorId('UNKNOWN_TOPIC_OR_PARTITION'),
    )
    const all = onlyPartition(await deleteRecords(client, topic, '-1'))
    expect([all.error_code, all.low_watermark]).toEqual([0, '10'])
    expect(await listOffset(client, topic, '-2')).toBe(10n)
  })

  it('applies retention, segment and cleanup config changes at run time, without a restart', async () => {
    const { cluster, client, topic, log } = await topicOn({})
    for (let i = 0; i < 6; i++) await produce(client, topic, batch([`a${i}`], { timestamp: TEN_MINUTES_AGO() }))
    expect(log().segmentBaseOffsets).toEqual([0n])
    await alterConfig(cluster, topic, { 'segment.bytes': '300' })
    await eventually(async () => (log().currentConfig.segmentBytes === 300 ? true : undefined), 'the new segment.bytes')
    for (let i = 0; i < 6; i++)
      await produce(client, topic, batch([`b${i}`, 'y'.repeat(100)], { timestamp: TEN_MINUTES_AGO() }))
    expect(log().segmentBaseOffsets.length).toBeGreaterThan(2)
    expect(await listOffset(client, topic, '-2')).toBe(0n) // 7 days of retention: nothing expired
    await alterConfig(cluster, topic, { 'retention.ms': '1000' })
    const end = log().logEndOffset
    await eventually(
      async () => ((await listOffset(client, topic, '-2')) === end ? true : undefined),
      'retention after the change',
    )
    // Switching to compact stops time retention and starts compaction.
    await alterConfig(cluster, topic, { 'cleanup.policy': 'compact', 'retention.ms': '0' })
    await eventually(
      async () => (log().currentConfig.cleanupPolicy === 'compact' ? true : undefined),
      'the new cleanup.policy',
    )
    const keyed = (k: string, v: string) =>
      encodeRecordBatch([{ key: Buffer.from(k), value: Buffer.from(v.padEnd(80, '.')) }])
    for (let i = 0; i < 24; i++) await produce(client, topic, keyed(`k${i % 3}`, `v${i}`))
    await eventually(async () => (log().firstDirtyOffset > end ? true : undefined), 'compaction')
    const values = new Map<string, string>()
    let count = 0
    for (let offset = end; offset < log().logEndOffset; ) {
      const f = onlyPartition(await fetchAt(client, topic, offset))
      expect(f.error_code).toBe(0)
      const batches = decodeRecordBatches(f.records)
      if (batches.length === 0) break
      for (const b of batches) {
        for (const r of b.records) {
          count++
          values.set(r.key!.toString(), r.value!.toString().replace(/\.+$/, ''))
        }
        offset = b.header.baseOffset + BigInt(b.header.lastOffsetDelta) + 1n
      }
    }
    expect(count).toBeLessThan(24)
    expect(values).toEqual(
      new Map([
        ['k0', 'v21'],
        ['k1', 'v22'],
        ['k2', 'v23'],
      ]),
    )
    expect(await listOffset(client, topic, '-2')).toBe(end)
  })
})
