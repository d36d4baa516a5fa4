import { describe, expect, it } from 'vitest'
import { decodeRecordBatches, encodeRecordBatch, errorId } from '@sluice/protocol'
import {
  BrokerTestClient,
  createTopic,
  eventually,
  onlyPartition,
  startTestCluster,
  uniqueTopic,
  waitForLeaders,
} from '../../src/broker/harness.js'

function idem(pid: bigint, epoch: number, seq: number, values: string[]): Buffer {
  return encodeRecordBatch(
    values.map((v) => ({ value: Buffer.from(v) })),
    { producerId: pid, producerEpoch: epoch, baseSequence: seq },
  )
}

async function produce(client: BrokerTestClient, topic: string, records: Buffer) {
  return onlyPartition(await client.produce({ acks: -1, topics: [{ topic, partitions: [{ partition: 0, records }] }] }))
}

async function readAll(client: BrokerTestClient, topic: string): Promise<string[]> {
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
  expect(f.error_code).toBe(0)
  return decodeRecordBatches(f.records).flatMap((b) => b.records.map((r) => r.value?.toString() ?? ''))
}

describe('idempotent produce at the broker', () => {
  it('appends a retried batch once, rejects gaps and stale epochs, and keeps the state across a restart', async () => {
    const cluster = await startTestCluster(1)
    let client = new BrokerTestClient(cluster.brokers[0]!.endpoint)
    const topic = uniqueTopic()
    await createTopic(cluster, { name: topic, num_partitions: 1, replication_factor: 1 })
    await waitForLeaders(client, topic, 1)

    const first = await produce(client, topic, idem(11n, 0, 0, ['a', 'b']))
    expect([first.error_code, first.base_offset]).toEqual([0, '0'])
    const second = await produce(client, topic, idem(11n, 0, 2, ['c']))
    expect([second.error_code, second.base_offset]).toEqual([0, '2'])
    const retry = await produce(client, topic, idem(11n, 0, 0, ['a', 'b']))
    expect([retry.error_code, retry.base_offset]).toEqual([0, '0'])

    const gap = await produce(client, topic, idem(11n, 0, 5, ['gap']))
    expect(gap.error_code).toBe(errorId('OUT_OF_ORDER_SEQUENCE_NUMBER'))
    const bumped = await produce(client, topic, idem(11n, 1, 0, ['d']))
    expect([bumped.error_code, bumped.base_offset]).toEqual([0, '3'])
    const stale = await produce(client, topic, idem(11n, 0, 3, ['stale']))
    expect(stale.error_code).toBe(errorId('INVALID_PRODUCER_EPOCH'))
    expect(await readAll(client, topic)).toEqual(['a', 'b', 'c', 'd'])

    // Restart from the same data dir: the retried batch is still recognised, the epoch still fenced.
    client.close()
    await cluster.brokers[0]!.stop()
    const restarted = await cluster.startBroker(1, cluster.brokerDataDir(1))
    client = new BrokerTestClient(restarted.endpoint)
    await waitForLeaders(client, topic, 1)
    const afterRestart = await produce(client, topic, idem(11n, 1, 0, ['d']))
    expect([afterRestart.error_code, afterRestart.base_offset]).toEqual([0, '3'])
    expect((await produce(client, topic, idem(11n, 0, 9, ['stale']))).error_code).toBe(
      errorId('INVALID_PRODUCER_EPOCH'),
    )
    expect((await produce(client, topic, idem(11n, 1, 2, ['gap']))).error_code).toBe(
      errorId('OUT_OF_ORDER_SEQUENCE_NUMBER'),
    )
    const next = await produce(client, topic, idem(11n, 1, 1, ['e']))
    expect([next.error_code, next.base_offset]).toEqual([0, '4'])
    // Non-idempotent batches skip all checks.
    const plain = await produce(client, topic, encodeRecordBatch([{ value: Buffer.from('f') }]))
    expect([plain.error_code, plain.base_offset]).toEqual([0, '5'])
    expect(await readAll(client, topic)).toEqual(['a', 'b', 'c', 'd', 'e', 'f'])
  })

  it('a follower that becomes leader recognises a retry of a batch it replicated', async () => {
    const cluster = await startTestCluster(2)
    const clients = new Map(cluster.brokers.map((b) => [b.brokerId, new BrokerTestClient(b.endpoint)]))
    const topic = uniqueTopic()
    await createTopic(cluster, { name: topic, num_partitions: 1, replication_factor: 2 })
    const before = await waitForLeaders(clients.get(1)!, topic, 1)
    const leaderId = before.partitions[0]!.leader
    const followerId = leaderId === 1 ? 2 : 1
    const leader = clients.get(leaderId)!
    // acks=-1: answered once the follower has the batch too.
    await eventually(async () => {
      const [isr] = (await leader.metadata({ topics: [topic] })).topics[0]!.partitions.map((p) => p.isr)
      return isr!.length === 2 ? true : undefined
    }, 'both replicas in the ISR')
    expect(await produce(leader, topic, idem(21n, 0, 0, ['a', 'b']))).toMatchObject({ error_code: 0, base_offset: '0' })
    expect(await produce(leader, topic, idem(21n, 0, 2, ['c']))).toMatchObject({ error_code: 0, base_offset: '2' })
    leader.close()
    await cluster.brokers.find((b) => b.brokerId === leaderId)!.stop()
    const follower = clients.get(followerId)!
    await eventually(async () => {
      const p = (await follower.metadata({ topics: [topic] })).topics[0]?.partitions[0]
      return p?.leader === followerId ? true : undefined
    }, 'the follower to take over')
    const retry = await eventually(async () => {
      const r = await produce(follower, topic, idem(21n, 0, 2, ['c']))
      return r.error_code === 0 ? r : undefined
    }, 'the new leader to accept writes')
    expect(retry.base_offset).toBe('2')
    expect((await produce(follower, topic, idem(21n, 0, 4, ['gap']))).error_code).toBe(
      errorId('OUT_OF_ORDER_SEQUENCE_NUMBER'),
    )
    expect(await readAll(follower, topic)).toEqual(['a', 'b', 'c'])
  })
})
