import { describe, expect, it } from 'vitest'
import * as grpc from '@grpc/grpc-js'
import { errorId, fromGrpcError, type wire } from '@sluice/protocol'
import { startHarness, waitFor, type Harness } from '../test-support/harness.js'

type CreateRes = wire.CreateTopicsResponse__Output
type DescribeRes = wire.DescribeTopicsResponse__Output
type Results = wire.DeleteTopicsResponse__Output

async function withBrokers(h: Harness, ids: number[]): Promise<void> {
  for (const id of ids) await h.broker({ broker_id: id, port: 19000 + id }).registered()
}

const codes = (rs: Array<{ name: string; error_code: number }>): Record<string, number> =>
  Object.fromEntries(rs.map((r) => [r.name, r.error_code]))

async function topicNames(h: Harness, includeInternal = true): Promise<string[]> {
  const res = await h.call<DescribeRes>('DescribeTopics', { names: [], include_internal: includeInternal })
  return res.topics.map((t) => t.name)
}

describe('metadata server: topics', () => {
  it('creates, describes and deletes a topic', async () => {
    const h = await startHarness()
    await withBrokers(h, [1, 2, 3])
    const created = await h.call<CreateRes>('CreateTopics', {
      topics: [{ name: 'orders', num_partitions: 6, replication_factor: 3, configs: { 'retention.ms': '1000' } }],
    })
    expect(created.topics[0]).toMatchObject({ name: 'orders', error_code: 0, num_partitions: 6, replication_factor: 3 })
    expect(created.topics[0]!.topic_id).toHaveLength(22)
    const d = (await h.call<DescribeRes>('DescribeTopics', { names: ['orders'] })).topics[0]!
    expect(d.error_code).toBe(0)
    expect(d.topic_id).toBe(created.topics[0]!.topic_id)
    expect(d.partitions).toHaveLength(6)
    const leaders = new Map<number, number>()
    for (const p of d.partitions) {
      expect(new Set(p.replicas).size).toBe(3)
      expect(p.leader).toBe(p.replicas[0])
      expect(p.isr).toEqual(p.replicas)
      expect(p.leader_epoch).toBe(0)
      leaders.set(p.leader, (leaders.get(p.leader) ?? 0) + 1)
    }
    expect([...leaders.values()]).toEqual([2, 2, 2])
    const cfg = Object.fromEntries(d.configs.map((c) => [c.name, [c.value, c.source]]))
    expect(cfg['retention.ms']).toEqual(['1000', 'topic'])
    expect(cfg['cleanup.policy']).toEqual(['delete', 'default'])
    const del = await h.call<Results>('DeleteTopics', { names: ['orders', 'nope', 'orders'] })
    expect(codes(del.topics)).toEqual({
      orders: errorId('INVALID_REQUEST'),
      nope: errorId('UNKNOWN_TOPIC_OR_PARTITION'),
    })
    expect((await h.call<Results>('DeleteTopics', { names: ['orders'] })).topics[0]!.error_code).toBe(0)
    expect(await topicNames(h)).toEqual([])
    const again = await h.call<DescribeRes>('DescribeTopics', { names: ['orders'] })
    expect(again.topics[0]!.error_code).toBe(errorId('UNKNOWN_TOPIC_OR_PARTITION'))
  })

  it('answers every bad CreateTopics input with its own error code and creates only the good topic', async () => {
    const h = await startHarness({ maxPartitionsPerTopic: 100 })
    await withBrokers(h, [1, 2, 3])
    await h.call<CreateRes>('CreateTopics', { topics: [{ name: 'exists', num_partitions: 1, replication_factor: 1 }] })
    const a = (partition: number, replicas: number[]): wire.ReplicaAssignment => ({ partition, replicas })
    const res = await h.call<CreateRes>('CreateTopics', {
      topics: [
        { name: 'good', num_partitions: 2, replication_factor: 2 },
        { name: 'bad name!', num_partitions: 1, replication_factor: 1 },
        { name: '..', num_partitions: 1, replication_factor: 1 },
        { name: 'x'.repeat(250), num_partitions: 1, replication_factor: 1 },
        { name: 'dup', num_partitions: 1, replication_factor: 1 },
        { name: 'dup', num_partitions: 1, replication_factor: 1 },
        { name: 'exists', num_partitions: 1, replication_factor: 1 },
        { name: 'zero-partitions', num_partitions: 0, replication_factor: 1 },
        { name: 'minus-two-partitions', num_partitions: -2, replication_factor: 1 },
        { name: 'too-many-partitions', num_partitions: 101, replication_factor: 1 },
        { name: 'zero-rf', num_partitions: 1, replication_factor: 0 },
        { name: 'rf-above-brokers', num_partitions: 1, replication_factor: 4 },
        { name: 'assign-with-count', num_partitions: 1, replication_factor: -1, assignments: [a(0, [1])] },
        { name: 'assign-unknown-broker', num_partitions: -1, replication_factor: -1, assignments: [a(0, [1, 99])] },
        { name: 'assign-dup-broker', num_partitions: -1, replication_factor: -1, assignments: [a(0, [2, 2])] },
        { name: 'assign-gap', num_partitions: -1, replication_factor: -1, assignments: [a(0, [1]), a(2, [2])] },
        { name: 'assign-twice', num_partitions: -1, replication_factor: -1, assignments: [a(0, [1]), a(0, [2])] },
        { name: 'assign-mixed-rf', num_partitions: -1, replication_factor: -1, assignments: [a(0, [1]), a(1, [2, 3])] },
        { name: 'assign-empty', num_partitions: -1, replication_factor: -1, assignments: [a(0, [])] },
        { name: 'bad-config-value', num_partitions: 1, replication_factor: 1, configs: { 'retention.ms': 'soon' } },
        { name: 'unknown-config', num_partitions: 1, replication_factor: 1, configs: { 'no.such.config': '1' } },
      ],
    })
    const byName = codes(res.topics)
    expect(byName).toEqual({
      good: 0,
      'bad name!': errorId('INVALID_TOPIC_EXCEPTION'),
      '..': errorId('INVALID_TOPIC_EXCEPTION'),
      ['x'.repeat(250)]: errorId('INVALID_TOPIC_EXCEPTION'),
      dup: errorId('INVALID_REQUEST'),
      exists: errorId('TOPIC_ALREADY_EXISTS'),
      'zero-partitions': errorId('INVALID_PARTITIONS'),
      'minus-two-partitions': errorId('INVALID_PARTITIONS'),
      'too-many-partitions': errorId('INVALID_PARTITIONS'),
      'zero-rf': errorId('INVALID_REPLICATION_FACTOR'),
      'rf-above-brokers': errorId('INVALID_REPLICATION_FACTOR'),
      'assign-with-count': errorId('INVALID_REQUEST'),
      'assign-unknown-broker': errorId('INVALID_REPLICA_ASSIGNMENT'),
      'assign-dup-broker': errorId('INVALID_REPLICA_ASSIGNMENT'),
      'assign-gap': errorId('INVALID_REPLICA_ASSIGNMENT'),
      'assign-twice': errorId('INVALID_REPLICA_ASSIGNMENT'),
      'assign-mixed-rf': errorId('INVALID_REPLICA_ASSIGNMENT'),
      'assign-empty': errorId('INVALID_REPLICA_ASSIGNMENT'),
      'bad-config-value': errorId('INVALID_CONFIG'),
      'unknown-config': errorId('INVALID_CONFIG'),
    })
    expect(res.topics.filter((t) => t.error_code !== 0).every((t) => t.error_message !== '')).toBe(true)
    expect(await topicNames(h)).toEqual(['exists', 'good'])
  })

  it('validate_only changes nothing; -1 takes the configured defaults; explicit assignments are kept', async () => {
    const h = await startHarness({ defaultNumPartitions: 3, defaultReplicationFactor: 2 })
    await withBrokers(h, [5, 7])
    const dry = await h.call<CreateRes>('CreateTopics', {
      validate_only: true,
      topics: [{ name: 'dry', num_partitions: -1, replication_factor: -1 }],
    })
    expect(dry.topics[0]).toMatchObject({ error_code: 0, num_partitions: 3, replication_factor: 2, topic_id: '' })
    expect(await topicNames(h)).toEqual([])
    await h.call<CreateRes>('CreateTopics', { topics: [{ name: 'dflt', num_partitions: -1, replication_factor: -1 }] })
    await h.call<CreateRes>('CreateTopics', {
      topics: [
        {
          name: 'manual',
          num_partitions: -1,
          replication_factor: -1,
          assignments: [
            { partition: 1, replicas: [5, 7] },
            { partition: 0, replicas: [7, 5] },
          ],
        },
      ],
    })
    const d = await h.call<DescribeRes>('DescribeTopics', { names: ['dflt', 'manual'] })
    expect(d.topics[0]!.partitions.map((p) => p.replicas.length)).toEqual([2, 2, 2])
    expect(d.topics[1]!.partitions.map((p) => [p.replicas, p.leader])).toEqual([
      [[7, 5], 7],
      [[5, 7], 5],
    ])
  })

  it('deletes only existing non-internal topics; describes internal topics only when asked', async () => {
    const h = await startHarness()
    await withBrokers(h, [1])
    await h.call<CreateRes>('CreateTopics', {
      topics: [
        { name: '__consumer_offsets', num_partitions: 2, replication_factor: 1 },
        { name: 'plain', num_partitions: 1, replication_factor: 1 },
      ],
    })
    expect(await topicNames(h, false)).toEqual(['plain'])
    expect(await topicNames(h, true)).toEqual(['__consumer_offsets', 'plain'])
    const named = await h.call<DescribeRes>('DescribeTopics', { names: ['__consumer_offsets', 'bad/name'] })
    expect(named.topics.map((t) => [t.is_internal, t.error_code])).toEqual([
      [true, 0],
      [false, errorId('INVALID_TOPIC_EXCEPTION')],
    ])
    const del = await h.call<Results>('DeleteTopics', { names: ['__consumer_offsets', 'bad/name', 'ghost'] })
    expect(codes(del.topics)).toEqual({
      __consumer_offsets: errorId('INVALID_TOPIC_EXCEPTION'),
      'bad/name': errorId('INVALID_TOPIC_EXCEPTION'),
      ghost: errorId('UNKNOWN_TOPIC_OR_PARTITION'),
    })
    expect(await topicNames(h)).toEqual(['__consumer_offsets', 'plain'])
  })

  it('CreatePartitions grows topics and rejects shrinking, same count and bad assignments', async () => {
    const h = await startHarness()
    await withBrokers(h, [1, 2, 3])
    await h.call<CreateRes>('CreateTopics', { topics: [{ name: 't', num_partitions: 2, replication_factor: 2 }] })
    const res = await h.call<Results>('CreatePartitions', {
      topics: [
        { name: 'ghost', count: 5 },
        { name: 'bad name', count: 5 },
      ],
    })
    expect(codes(res.topics)).toEqual({
      ghost: errorId('UNKNOWN_TOPIC_OR_PARTITION'),
      'bad name': errorId('INVALID_TOPIC_EXCEPTION'),
    })
    const one = async (t: object): Promise<number> =>
      (await h.call<Results>('CreatePartitions', { topics: [t] })).topics[0]!.error_code
    expect(await one({ name: 't', count: 2 })).toBe(errorId('INVALID_PARTITIONS'))
    expect(await one({ name: 't', count: 1 })).toBe(errorId('INVALID_PARTITIONS'))
    expect(await one({ name: 't', count: 4, assignments: [{ partition: 2, replicas: [1, 2] }] })).toBe(
      errorId('INVALID_REPLICA_ASSIGNMENT'),
    )
    expect(await one({ name: 't', count: 3, assignments: [{ partition: 2, replicas: [1] }] })).toBe(
      errorId('INVALID_REPLICA_ASSIGNMENT'),
    )
    expect(await one({ name: 't', count: 3, assignments: [{ partition: 3, replicas: [1, 2] }] })).toBe(
      errorId('INVALID_REPLICA_ASSIGNMENT'),
    )
    expect(
      (await h.call<Results>('CreatePartitions', { validate_only: true, topics: [{ name: 't', count: 9 }] })).topics[0]!
        .error_code,
    ).toBe(0)
    expect((await h.call<DescribeRes>('DescribeTopics', { names: ['t'] })).topics[0]!.partitions).toHaveLength(2)
    expect(await one({ name: 't', count: 3, assignments: [{ partition: 2, replicas: [3, 1] }] })).toBe(0)
    expect(await one({ name: 't', count: 5 })).toBe(0)
    const parts = (await h.call<DescribeRes>('DescribeTopics', { names: ['t'] })).topics[0]!.partitions
    expect(parts.map((p) => p.partition)).toEqual([0, 1, 2, 3, 4])
    expect(parts[2]!.replicas).toEqual([3, 1])
    for (const p of parts) expect(new Set(p.replicas).size).toBe(2)
  })

  it('AlterConfigs sets and deletes overrides, validates them, and pushes them to brokers', async () => {
    const h = await startHarness()
    const b = h.broker({ broker_id: 1 })
    await b.registered()
    await h.call<CreateRes>('CreateTopics', {
      topics: [{ name: 'c', num_partitions: 1, replication_factor: 1, configs: { 'retention.ms': '5000' } }],
    })
    const alter = async (topic: string, configs: object[], validateOnly = false): Promise<number> =>
      (
        await h.call<wire.AlterConfigsResponse__Output>('AlterConfigs', {
          validate_only: validateOnly,
          resources: [{ topic, configs }],
        })
      ).resources[0]!.error_code
    expect(await alter('c', [{ name: 'retention.ms', value: 'later', op: 'set' }])).toBe(errorId('INVALID_CONFIG'))
    expect(await alter('c', [{ name: 'nope', value: '1', op: 'set' }])).toBe(errorId('INVALID_CONFIG'))
    expect(await alter('c', [{ name: 'nope', op: 'delete' }])).toBe(errorId('INVALID_CONFIG'))
    expect(await alter('c', [{ name: 'retention.ms', value: '1', op: 'replace' }])).toBe(errorId('INVALID_REQUEST'))
    expect(
      await alter('c', [
        { name: 'retention.ms', value: '1', op: 'set' },
        { name: 'retention.ms', value: '2', op: 'set' },
      ]),
    ).toBe(errorId('INVALID_REQUEST'))
    expect(await alter('ghost', [{ name: 'retention.ms', value: '1', op: 'set' }])).toBe(
      errorId('UNKNOWN_TOPIC_OR_PARTITION'),
    )
    expect(await alter('c', [{ name: 'cleanup.policy', value: 'compact', op: 'set' }], true)).toBe(0)
    const cfg = async (): Promise<Record<string, string>> =>
      Object.fromEntries(
        (await h.call<DescribeRes>('DescribeTopics', { names: ['c'] })).topics[0]!.configs.filter(
          (e) => e.source === 'topic',
        ).map((e) => [e.name, e.value]),
      )
    expect(await cfg()).toEqual({ 'retention.ms': '5000' })
    expect(
      await alter('c', [
        { name: 'retention.ms', op: 'delete' },
        { name: 'cleanup.policy', value: 'compact', op: 'set' },
      ]),
    ).toBe(0)
    expect(await cfg()).toEqual({ 'cleanup.policy': 'compact' })
    await waitFor(() => b.view().configs.get('c')?.['cleanup.policy'] === 'compact', 'the config delta at the broker')
    expect(b.view().configs.get('c')?.['retention.ms']).toBe(String(7 * 24 * 3600 * 1000))
  })

  it('DescribeCluster and InitProducerId', async () => {
    const h = await startHarness()
    await withBrokers(h, [2, 1])
    const c = await h.call<wire.DescribeClusterResponse__Output>('DescribeCluster', {})
    expect(c.cluster_id).toHaveLength(22)
    expect(c.brokers.map((b) => b.broker_id)).toEqual([1, 2])
    expect(c.metadata_endpoints).toEqual([h.server.endpoint])
    expect(c.controller_epoch).toBe(1)
    type Pid = wire.InitProducerIdResponse__Output
    const first = await h.call<Pid>('InitProducerId', { producer_id: '-1', producer_epoch: -1 })
    const second = await h.call<Pid>('InitProducerId', { producer_id: '-1', producer_epoch: -1 })
    expect([first.producer_id, first.producer_epoch, second.producer_id]).toEqual(['0', 0, '1'])
    const bumped = await h.call<Pid>('InitProducerId', { producer_id: '1', producer_epoch: 0 })
    expect([bumped.error_code, bumped.producer_id, bumped.producer_epoch]).toEqual([0, '1', 1])
    expect((await h.call<Pid>('InitProducerId', { producer_id: '5000', producer_epoch: 0 })).error_code).toBe(
      errorId('UNKNOWN_PRODUCER_ID'),
    )
    expect((await h.call<Pid>('InitProducerId', { producer_id: '-7', producer_epoch: 0 })).error_code).toBe(
      errorId('INVALID_REQUEST'),
    )
    expect((await h.call<Pid>('InitProducerId', { producer_id: '1', producer_epoch: -3 })).error_code).toBe(
      errorId('INVALID_REQUEST'),
    )
  })

  it('a restart from the same data dir keeps topics, configs, cluster id and never reuses ids or epochs', async () => {
    const h = await startHarness({ brokerSessionTimeoutMs: 60_000 })
    const b1 = h.broker({ broker_id: 1 })
    const epoch1 = BigInt(await b1.registered())
    await h.call<CreateRes>('CreateTopics', {
      topics: [{ name: 'kept', num_partitions: 3, replication_factor: 1, configs: { 'retention.ms': '42' } }],
    })
    await h.call<CreateRes>('CreateTopics', { topics: [{ name: 'gone', num_partitions: 1, replication_factor: 1 }] })
    await h.call<Results>('DeleteTopics', { names: ['gone'] })
    const pid = await h.call<wire.InitProducerIdResponse__Output>('InitProducerId', {
      producer_id: '-1',
      producer_epoch: -1,
    })
    const before = await h.call<DescribeRes>('DescribeTopics', { names: [] })
    const cluster = await h.call<wire.DescribeClusterResponse__Output>('DescribeCluster', {})
    b1.cancel()
    await h.restart()
    const after = await h.call<DescribeRes>('DescribeTopics', { names: [] })
    expect(after.topics).toEqual(before.topics)
    const cluster2 = await h.call<wire.DescribeClusterResponse__Output>('DescribeCluster', {})
    expect(cluster2.cluster_id).toBe(cluster.cluster_id)
    expect(cluster2.controller_epoch).toBe(cluster.controller_epoch + 1)
    expect(cluster2.brokers).toEqual([])
    const b1again = h.broker({ broker_id: 1 })
    expect(BigInt(await b1again.registered())).toBeGreaterThan(epoch1)
    const pid2 = await h.call<wire.InitProducerIdResponse__Output>('InitProducerId', {
      producer_id: '-1',
      producer_epoch: -1,
    })
    expect(BigInt(pid2.producer_id)).toBeGreaterThan(BigInt(pid.producer_id))
    // The broker came back within the grace period: it still leads, with no epoch bump.
    const parts = (await h.call<DescribeRes>('DescribeTopics', { names: ['kept'] })).topics[0]!.partitions
    expect(parts.map((p) => [p.leader, p.leader_epoch])).toEqual([
      [1, 0],
      [1, 0],
      [1, 0],
    ])
  })

  it('survives malformed and unknown requests', async () => {
    const h = await startHarness()
    // An unknown method: UNIMPLEMENTED, from grpc-js.
    const raw = new grpc.Client(h.server.endpoint, grpc.credentials.createInsecure())
    const send = async (method: string, bytes: Buffer): Promise<grpc.ServiceError> =>
      await new Promise((resolve) => {
        raw.makeUnaryRequest(
          method,
          (b: Buffer) => b,
          (b: Buffer) => b,
          bytes,
          (e) => {
            resolve(e!)
          },
        )
      })
    expect((await send('/sluice.v1.Metadata/NoSuchMethod', Buffer.alloc(0))).code).toBe(grpc.status.UNIMPLEMENTED)
    expect((await send('/sluice.v1.Nothing/Here', Buffer.alloc(0))).code).toBe(grpc.status.UNIMPLEMENTED)
    // Bytes that are not a CreateTopicsRequest.
    const garbage = await send(
      '/sluice.v1.Metadata/CreateTopics',
      Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]),
    )
    expect(garbage.code).not.toBe(grpc.status.OK)
    raw.close()
    // A well-formed request with a bad request-level field: a typed gRPC status.
    const err = await h.call('ElectLeaders', { election_type: 9 }).catch((e: unknown) => e)
    expect(fromGrpcError(err).code).toBe('INVALID_REQUEST')
    const ap = await h.call<wire.AlterPartitionResponse__Output>('AlterPartition', {
      broker_id: -4,
      broker_epoch: '1',
      topic: 't',
      partition: -1,
      new_isr: [],
    })
    expect(ap.error_code).toBe(errorId('INVALID_REQUEST'))
    // Still serving.
    expect((await h.call<wire.DescribeClusterResponse__Output>('DescribeCluster', {})).cluster_id).toHaveLength(22)
  })
})
