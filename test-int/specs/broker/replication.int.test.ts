import { describe, expect, it } from 'vitest'
import { decodeRecordBatches, errorId, type wire } from '@sluice/protocol'
import {
  brokerInternals,
  KafkaFetchConnection,
  REPLICA_FETCH_TRANSPORTS,
  type ReplicaFetchTransportKind,
} from '@sluice/broker/internal'
import { batch, eventually, onlyPartition } from '../../src/broker/harness.js'
import { FAST_REPLICATION, ReplicationCluster, logBytes } from '../../src/broker/replication-cluster.js'

type Client = ReturnType<ReplicationCluster['client']>

async function produce(
  client: Client,
  topic: string,
  values: string[],
  acks = -1,
  timeoutMs = 10_000,
): Promise<wire.PartitionProduceResponse__Output> {
  return onlyPartition(
    await client.produce({
      acks,
      timeout_ms: timeoutMs,
      topics: [{ topic, partitions: [{ partition: 0, records: batch(values) }] }],
    }),
  )
}

async function consume(client: Client, topic: string): Promise<{ values: string[]; hw: bigint; lastOffset: bigint }> {
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
  const records = decodeRecordBatches(f.records).flatMap((b) => b.records)
  return {
    values: records.map((r) => r.value?.toString() ?? ''),
    hw: BigInt(f.high_watermark),
    lastOffset: records.at(-1)?.offset ?? -1n,
  }
}

/**
 * A follower fetch sent to broker `to` the way a follower under `transport` sends it: on the
 * gRPC Fetch, or as Kafka Fetch v15 to its Kafka listener (through the fetcher's own Kafka
 * connection, whose bigint answer is put in the gRPC shape here, so both are checked with the
 * same expectations).
 */
async function followerFetch(
  c: ReplicationCluster,
  to: number,
  transport: ReplicaFetchTransportKind,
  topic: string,
  part: Partial<wire.PartitionFetchData> & { replica_id: number; replica_epoch: string },
): Promise<wire.FetchResponse__Output> {
  const { replica_id: replicaId, replica_epoch: replicaEpoch, ...p } = part
  const partition: wire.PartitionFetchData__Output = {
    partition: 0,
    fetch_offset: '0',
    partition_max_bytes: 1 << 20,
    current_leader_epoch: 0,
    last_fetched_epoch: -1,
    log_start_offset: '-1',
    ...(p as Partial<wire.PartitionFetchData__Output>),
  }
  if (transport === 'grpc') {
    return await c.client(to).fetch({
      replica_id: replicaId,
      replica_epoch: replicaEpoch,
      topics: [{ topic, partitions: [partition] }],
    })
  }
  const broker = c.brokers.get(to)!
  const cache = brokerInternals(broker)!.context.cache
  const connection = new KafkaFetchConnection({
    address: `127.0.0.1:${broker.kafkaPort}`,
    clientId: 'replication-test',
    topicIdOf: (t) => cache.topicIdOf(t),
  })
  try {
    const answer = await connection.fetch({
      correlationId: 1n,
      replicaId,
      replicaEpoch: BigInt(replicaEpoch),
      maxWaitMs: 0,
      minBytes: 1,
      maxBytes: 1 << 20,
      clientId: 'replication-test',
      topics: [
        {
          topic,
          partitions: [
            {
              partition: partition.partition,
              currentLeaderEpoch: partition.current_leader_epoch,
              fetchOffset: BigInt(partition.fetch_offset),
              lastFetchedEpoch: partition.last_fetched_epoch,
              logStartOffset: BigInt(partition.log_start_offset),
              partitionMaxBytes: partition.partition_max_bytes,
            },
          ],
        },
      ],
    })
    return {
      correlation_id: String(answer.correlationId),
      error_code: answer.errorCode,
      error_message: answer.errorMessage,
      throttle_time_ms: 0,
      topics: answer.topics.map((t) => ({
        topic: t.topic,
        partitions: t.partitions.map((p) => ({
          partition: p.partition,
          error_code: p.errorCode,
          error_message: p.errorMessage,
          high_watermark: String(p.highWatermark),
          last_stable_offset: '-1',
          log_start_offset: String(p.logStartOffset),
          log_end_offset: String(p.logEndOffset),
          records: p.records,
          diverging_epoch:
            p.divergingEpoch === undefined
              ? null
              : { epoch: p.divergingEpoch.epoch, end_offset: String(p.divergingEpoch.endOffset) },
          leader_epoch: -1,
        })),
      })),
    }
  } finally {
    connection.close(new Error('test done'))
  }
}

describe.each(REPLICA_FETCH_TRANSPORTS)('replication, followers fetching over %s', (transport) => {
  const startCluster = (count: number): Promise<ReplicationCluster> =>
    // Every broker runs a Kafka listener: followers fetch there under the 'kafka' transport.
    ReplicationCluster.start(count, { ...FAST_REPLICATION, kafkaPort: 0, replicaFetchTransport: transport })

  it('followers catch up byte for byte, the high watermark advances, and acks=-1 waits for the ISR', async () => {
    const c = await startCluster(3)
    const topic = await c.topic([1, 2, 3], { 'min.insync.replicas': '2' })
    await c.waitForState(topic, (s) => s.leader === 1 && s.isr.length === 3, 'leader 1 with a full ISR')
    for (let i = 0; i < 5; i++) expect((await produce(c.client(1), topic, [`a${i}`, `b${i}`])).error_code).toBe(0)
    // acks=-1 answered: the HW is past the batch, so every ISR member already has it.
    const leader = c.replica(1, topic)!
    expect(leader.highWatermark).toBe(10n)
    for (const id of [2, 3]) expect(c.replica(id, topic)!.logEndOffset).toBe(10n)
    const expected = await logBytes(leader)
    for (const id of [2, 3]) {
      await eventually(
        async () => c.replica(id, topic)!.highWatermark === 10n || undefined,
        `follower ${id} learns the HW`,
      )
      expect((await logBytes(c.replica(id, topic)!)).equals(expected)).toBe(true)
    }
    expect((await consume(c.client(1), topic)).values).toHaveLength(10)
    // One fetcher per source broker, none on the leader, connected over the configured transport.
    expect(brokerInternals(c.brokers.get(2)!)!.fetchers.sources).toEqual([1])
    expect(brokerInternals(c.brokers.get(1)!)!.fetchers.sources).toEqual([])
    for (const id of [2, 3])
      expect(brokerInternals(c.brokers.get(id)!)!.fetchers.connectedVia).toEqual({ 1: transport })
  })

  it('rejects acks=-1 with NOT_ENOUGH_REPLICAS when two of three brokers are down, appending nothing', async () => {
    const c = await startCluster(3)
    const topic = await c.topic([1, 2, 3], { 'min.insync.replicas': '2' })
    await c.waitForState(topic, (s) => s.leader === 1 && s.isr.length === 3, 'full ISR')
    expect((await produce(c.client(1), topic, ['ok'])).error_code).toBe(0)
    await Promise.all([c.stop(2), c.stop(3)])
    await c.waitForState(topic, (s) => s.isr.length === 1, 'the ISR shrinks to the leader')
    const r = await produce(c.client(1), topic, ['rejected'])
    expect(r.error_code).toBe(errorId('NOT_ENOUGH_REPLICAS'))
    expect(c.replica(1, topic)!.logEndOffset).toBe(1n)
    expect((await produce(c.client(1), topic, ['acks1'], 1)).error_code).toBe(0) // acks=1 does not need the ISR
  })

  it('shrinks the ISR of a follower that stops fetching (NOT_ENOUGH_REPLICAS_AFTER_APPEND) and expands it when it returns', async () => {
    const c = await startCluster(2)
    // Broker 3 is alive and registered but its replication traffic to broker 1 goes nowhere.
    await c.start(3, { replicaConnectOverrides: { 1: '127.0.0.1:1' } })
    const topic = await c.topic([1, 2, 3], { 'min.insync.replicas': '3' })
    await c.waitForState(topic, (s) => s.leader === 1 && s.isr.length === 3, 'full ISR at creation')
    // The HW cannot pass this batch until broker 3 leaves the ISR, and then the ISR is below 3.
    const late = await produce(c.client(1), topic, ['late'], -1, 20_000)
    expect(late.error_code).toBe(errorId('NOT_ENOUGH_REPLICAS_AFTER_APPEND'))
    await c.waitForState(topic, (s) => s.isr.join() === '1,2', 'ISR [1,2] after replicaLagMaxMs')
    expect((await produce(c.client(1), topic, ['rejected'])).error_code).toBe(errorId('NOT_ENOUGH_REPLICAS'))
    expect(c.replica(3, topic)!.logEndOffset).toBe(0n)

    await c.stop(3)
    await c.start(3) // no override: it can reach the leader now
    await c.waitForState(topic, (s) => s.isr.length === 3 && s.leader === 1, 'broker 3 back in the ISR')
    expect((await produce(c.client(1), topic, ['accepted'])).error_code).toBe(0)
    expect((await consume(c.client(1), topic)).values).toEqual(['late', 'accepted'])
    expect((await logBytes(c.replica(3, topic)!)).equals(await logBytes(c.replica(1, topic)!))).toBe(true)
  })

  it('fails over when the leader stops: every acknowledged record is on the new leader, nothing above the HW is visible', async () => {
    const c = await startCluster(3)
    const topic = await c.topic([1, 2, 3], { 'min.insync.replicas': '2' })
    const before = await c.waitForState(topic, (s) => s.leader === 1 && s.isr.length === 3, 'full ISR')
    const acked: string[] = []
    for (let i = 0; i < 20; i++) {
      if ((await produce(c.client(1), topic, [`v${i}`])).error_code === 0) acked.push(`v${i}`)
    }
    expect(acked).toHaveLength(20)
    await c.stop(1)
    const after = await c.waitForState(topic, (s) => s.leader === 2 && s.isr.join() === '2,3', 'broker 2 leads')
    expect(after.leaderEpoch).toBe(before.leaderEpoch + 1)
    const read = await consume(c.client(2), topic)
    expect(read.values).toEqual(acked)
    expect(read.lastOffset < read.hw).toBe(true)
    // The new leader takes acks=-1 writes with the remaining ISR, stamped with its epoch.
    expect((await produce(c.client(2), topic, ['after'])).error_code).toBe(0)
    const leaderLog = c.replica(2, topic)!.log
    expect(leaderLog.leaderEpochs().at(-1)).toEqual({ epoch: after.leaderEpoch, startOffset: 20n })
    // The old leader returns, catches up, re-enters the ISR, and (preferred) leads again.
    await c.start(1)
    await c.waitForState(topic, (s) => s.leader === 1 && s.isr.length === 3, 'preferred leader back', 20_000)
    expect((await consume(c.client(1), topic)).values).toEqual([...acked, 'after'])
  })

  it('a deposed leader truncates its unreplicated tail when it rejoins as a follower', async () => {
    const c = await startCluster(3)
    const topic = await c.topic([1, 2, 3], { 'unclean.leader.election.enable': 'true' })
    await c.waitForState(topic, (s) => s.leader === 1 && s.isr.length === 3, 'full ISR')
    expect((await produce(c.client(1), topic, ['a', 'b'])).error_code).toBe(0)
    await Promise.all([c.stop(2), c.stop(3)])
    await c.waitForState(topic, (s) => s.isr.join() === '1', 'ISR [1]')
    expect((await produce(c.client(1), topic, ['x', 'y'], 1)).error_code).toBe(0) // the tail only broker 1 has
    await c.stop(1)
    await c.start(2)
    await c.waitForState(topic, (s) => s.leader === 2, 'unclean election of broker 2')
    await c.start(3)
    expect((await produce(c.client(2), topic, ['p', 'q', 'r'], 1)).error_code).toBe(0)
    expect(c.replica(2, topic)!.logEndOffset).toBe(5n)

    await c.start(1)
    await eventually(async () => {
      const r = c.replica(1, topic)
      return r !== undefined && r.logEndOffset === 5n && r.role === 'follower' ? true : undefined
    }, 'broker 1 truncated and caught up')
    const mine = await logBytes(c.replica(1, topic)!)
    expect(mine.equals(await logBytes(c.replica(2, topic)!))).toBe(true)
    const values = decodeRecordBatches(mine).flatMap((b) => b.records.map((r) => r.value?.toString()))
    expect(values).toEqual(['a', 'b', 'p', 'q', 'r'])
    expect(c.replica(1, topic)!.log.leaderEpochs()).toEqual(c.replica(2, topic)!.log.leaderEpochs())
  })

  it("followers follow the leader's log start offset, and one that fell behind it restarts there", async () => {
    const c = await startCluster(3)
    const topic = await c.topic([1, 2, 3], { 'min.insync.replicas': '1' })
    await c.waitForState(topic, (s) => s.leader === 1 && s.isr.length === 3, 'full ISR')
    for (let i = 0; i < 4; i++) expect((await produce(c.client(1), topic, [`a${i}`, `b${i}`])).error_code).toBe(0)
    const deleteBefore = async (offset: bigint): Promise<wire.DeleteRecordsPartitionResponse__Output> =>
      onlyPartition(
        await c
          .client(1)
          .deleteRecords({ topics: [{ topic, partitions: [{ partition: 0, offset: offset.toString() }] }] }),
      )
    expect((await deleteBefore(4n)).error_code).toBe(0)
    for (const id of [2, 3]) {
      await eventually(
        async () => c.replica(id, topic)!.logStartOffset === 4n || undefined,
        `follower ${id} moves its log start to 4`,
      )
    }

    // Broker 3 stops; the leader moves on and deletes past everything broker 3 holds.
    await c.stop(3)
    await c.waitForState(topic, (s) => s.isr.join() === '1,2', 'ISR without broker 3')
    for (let i = 4; i < 8; i++) expect((await produce(c.client(1), topic, [`a${i}`, `b${i}`])).error_code).toBe(0)
    expect((await deleteBefore(12n)).error_code).toBe(0)
    await c.start(3)
    await c.waitForState(
      topic,
      (s) => s.isr.length === 3,
      "broker 3 back in the ISR after restarting at the leader's log start",
    )
    const back = c.replica(3, topic)!
    expect(back.logStartOffset).toBe(12n)
    expect(back.logEndOffset).toBe(16n)
    expect((await logBytes(back)).equals(await logBytes(c.replica(1, topic)!))).toBe(true)
  })

  it('answers follower fetches with a stale epoch, from a non-replica or a stale broker epoch with typed errors and no state change', async () => {
    const c = await startCluster(3)
    const topic = await c.topic([1, 2])
    const s = await c.waitForState(topic, (x) => x.leader === 1 && x.isr.length === 2, 'ISR [1,2]')
    expect((await produce(c.client(1), topic, ['a', 'b', 'c'])).error_code).toBe(0)
    const leader = c.replica(1, topic)!
    const epoch2 = brokerInternals(c.brokers.get(2)!)!.session.brokerEpoch!.toString()
    const epoch3 = brokerInternals(c.brokers.get(3)!)!.session.brokerEpoch!.toString()
    const snapshot = (): string =>
      JSON.stringify([String(leader.highWatermark), String(leader.logEndOffset), leader.isr, leader.maximalIsr])
    const before = snapshot()
    const ask = async (p: Parameters<typeof followerFetch>[4]) =>
      onlyPartition(await followerFetch(c, 1, transport, topic, p))

    const stranger = await ask({ replica_id: 3, replica_epoch: epoch3, current_leader_epoch: s.leaderEpoch })
    expect(stranger.error_code).toBe(errorId('REPLICA_NOT_AVAILABLE'))
    const self = await ask({ replica_id: 1, replica_epoch: '1', current_leader_epoch: s.leaderEpoch })
    expect(self.error_code).toBe(errorId('REPLICA_NOT_AVAILABLE'))
    const fenced = await ask({ replica_id: 2, replica_epoch: epoch2, current_leader_epoch: s.leaderEpoch - 1 })
    expect(fenced.error_code).toBe(errorId('FENCED_LEADER_EPOCH'))
    const future = await ask({ replica_id: 2, replica_epoch: epoch2, current_leader_epoch: s.leaderEpoch + 1 })
    expect(future.error_code).toBe(errorId('UNKNOWN_LEADER_EPOCH'))
    const staleBroker = await ask({ replica_id: 2, replica_epoch: '0', current_leader_epoch: s.leaderEpoch })
    expect(staleBroker.error_code).toBe(errorId('STALE_BROKER_EPOCH'))
    const diverging = await ask({
      replica_id: 2,
      replica_epoch: epoch2,
      current_leader_epoch: s.leaderEpoch,
      fetch_offset: '7',
      last_fetched_epoch: s.leaderEpoch,
    })
    expect([diverging.error_code, diverging.records.length, diverging.diverging_epoch]).toEqual([
      0,
      0,
      { epoch: s.leaderEpoch, end_offset: '3' },
    ])
    for (const r of [stranger, self, fenced, future, staleBroker]) expect(r.records.length).toBe(0)
    expect(snapshot()).toBe(before)
    // A follower fetch sent to a follower is refused too.
    const atFollower = onlyPartition(
      await followerFetch(c, 2, transport, topic, {
        replica_id: 3,
        replica_epoch: epoch3,
        current_leader_epoch: s.leaderEpoch,
      }),
    )
    expect(atFollower.error_code).toBe(errorId('NOT_LEADER_OR_FOLLOWER'))
  })

  it('checkpoints high watermarks and restores them (clamped to the log end) after a restart', async () => {
    const c = await startCluster(2)
    const topic = await c.topic([1, 2])
    await c.waitForState(topic, (s) => s.isr.length === 2, 'ISR [1,2]')
    expect((await produce(c.client(1), topic, ['a', 'b', 'c', 'd'])).error_code).toBe(0)
    await eventually(async () => c.replica(2, topic)!.highWatermark === 4n || undefined, 'follower HW 4')
    await c.stop(2)
    await c.start(2, { replicaConnectOverrides: { 1: '127.0.0.1:1' } }) // cannot fetch: the HW comes from the file
    await eventually(async () => c.replica(2, topic) !== undefined || undefined, 'replica hosted again')
    expect(c.replica(2, topic)!.highWatermark).toBe(4n)
  })
})
