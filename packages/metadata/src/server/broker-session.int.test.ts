import { describe, expect, it } from 'vitest'
import { errorId, type wire } from '@sluice/protocol'
import { startHarness, waitFor, waitForAsync, type FakeBroker, type Harness } from '../test-support/harness.js'

type DescribeRes = wire.DescribeTopicsResponse__Output
type AlterRes = wire.AlterPartitionResponse__Output

async function partition(h: Harness, topic: string, p = 0): Promise<wire.PartitionState__Output> {
  const d = await h.call<DescribeRes>('DescribeTopics', { names: [topic] })
  return d.topics[0]!.partitions[p]!
}

async function createTopic(
  h: Harness,
  name: string,
  assignments: number[][],
  configs: Record<string, string> = {},
): Promise<void> {
  const res = await h.call<wire.CreateTopicsResponse__Output>('CreateTopics', {
    topics: [
      {
        name,
        num_partitions: -1,
        replication_factor: -1,
        configs,
        assignments: assignments.map((replicas, partition) => ({ partition, replicas })),
      },
    ],
  })
  expect(res.topics[0]!.error_code).toBe(0)
}

async function brokers(h: Harness, ids: number[], timeoutMs = 0): Promise<FakeBroker[]> {
  const out: FakeBroker[] = []
  for (const id of ids) {
    const b = h.broker({ broker_id: id, port: 19000 + id, session_timeout_ms: timeoutMs })
    await b.registered()
    out.push(b)
  }
  return out
}

describe('metadata server: broker sessions', () => {
  it('registers, sends the full snapshot, acks heartbeats and pushes deltas', async () => {
    const h = await startHarness()
    const [b1] = await brokers(h, [1])
    await createTopic(h, 'snap', [[1]], { 'retention.ms': '77' })
    const b2 = h.broker({
      broker_id: 2,
      host: 'broker-2.local',
      port: 9092,
      rack: 'r1',
      admin_port: 8080,
      kafka_host: 'kafka-2.local',
      kafka_port: 19092,
    })
    const epoch2 = await b2.registered()
    expect(b2.messages[0]!.kind).toBe('registered')
    const reg = b2.messages[0]!.registered!
    const cluster = await h.call<wire.DescribeClusterResponse__Output>('DescribeCluster', {})
    expect(reg).toMatchObject({
      cluster_id: cluster.cluster_id,
      controller_id: cluster.controller_id,
      controller_epoch: cluster.controller_epoch,
    })
    expect(BigInt(epoch2)).toBeGreaterThan(BigInt(b1!.epoch))
    await waitFor(() => b2.updates().length > 0, 'the full snapshot')
    const full = b2.updates()[0]!
    expect(full.full).toBe(true)
    expect(full.brokers.map((b) => [b.broker_id, b.host, b.port, b.rack, b.admin_port])).toEqual([
      [1, '127.0.0.1', 19001, '', 0],
      [2, 'broker-2.local', 9092, 'r1', 8080],
    ])
    // The Kafka listener travels with the registration; one registered without it reads as '' and 0.
    expect(full.brokers.map((b) => [b.kafka_host, b.kafka_port])).toEqual([
      ['', 0],
      ['kafka-2.local', 19092],
    ])
    expect(cluster.brokers.find((b) => b.broker_id === 2)).toMatchObject({
      kafka_host: 'kafka-2.local',
      kafka_port: 19092,
    })
    expect(full.partitions).toMatchObject([{ topic: 'snap', partition: 0, leader: 1, replicas: [1], isr: [1] }])
    expect(full.topic_configs[0]!.entries.find((e) => e.name === 'retention.ms')).toEqual({
      name: 'retention.ms',
      value: '77',
      source: 'topic',
    })
    expect(full.metadata_endpoints).toEqual([h.server.endpoint])
    expect(full.cluster_id).toBe(cluster.cluster_id)
    b2.heartbeat()
    await waitFor(() => b2.messages.some((m) => m.kind === 'heartbeat_ack'), 'heartbeat ack')
    expect(b2.messages.find((m) => m.kind === 'heartbeat_ack')!.heartbeat_ack!.broker_epoch).toBe(epoch2)
    // Broker 1 learns about broker 2 and about a new topic through deltas.
    await waitFor(() => b1!.view().brokers.join() === '1,2', 'broker list delta')
    await createTopic(h, 'later', [[2, 1]])
    await waitFor(() => b1!.view().partitions.get('later-0')?.leader === 2, 'partition delta')
    expect(
      b1!
        .updates()
        .slice(1)
        .every((u) => !u.full),
    ).toBe(true)
    await h.call('DeleteTopics', { names: ['later'] })
    await waitFor(() => !b2.view().partitions.has('later-0'), 'deleted_topics delta')
  })

  it('rejects bad registrations and protocol violations with a SessionError, then ends the stream', async () => {
    const h = await startHarness()
    const cluster = await h.call<wire.DescribeClusterResponse__Output>('DescribeCluster', {})
    const cases: Array<[Partial<wire.RegisterBroker>, string]> = [
      [{ broker_id: -1 }, 'INVALID_REQUEST'],
      [{ broker_id: 1, port: 0 }, 'INVALID_REQUEST'],
      [{ broker_id: 1, port: 70000 }, 'INVALID_REQUEST'],
      [{ broker_id: 1, host: '' }, 'INVALID_REQUEST'],
      [{ broker_id: 1, session_timeout_ms: 5 }, 'INVALID_REQUEST'],
      [{ broker_id: 1, kafka_host: 'k', kafka_port: 70000 }, 'INVALID_REQUEST'],
      [{ broker_id: 1, kafka_port: 9092 }, 'INVALID_REQUEST'],
      [{ broker_id: 1, kafka_host: 'k' }, 'INVALID_REQUEST'],
      [{ broker_id: 1, cluster_id: 'someone-elses-cluster' }, 'INCONSISTENT_CLUSTER_ID'],
    ]
    for (const [reg, code] of cases) {
      const b = h.broker(reg)
      expect((await b.error()).error_code, JSON.stringify(reg)).toBe(errorId(code as 'INVALID_REQUEST'))
      await waitFor(() => b.ended, 'stream end')
    }
    // Heartbeat first.
    const early = h.broker({ broker_id: 3 })
    const hbFirst = h.client.BrokerSession()
    const got: wire.BrokerSessionResponse__Output[] = []
    hbFirst.on('data', (m: wire.BrokerSessionResponse__Output) => got.push(m))
    hbFirst.on('error', () => {})
    hbFirst.write({ heartbeat: { broker_id: 4, broker_epoch: '1' } })
    await waitFor(() => got.length > 0, 'error for a heartbeat-first session')
    expect(got[0]!.error!.error_code).toBe(errorId('INVALID_REQUEST'))
    hbFirst.cancel()
    // The right cluster id is fine; a second register on the same stream is not.
    await early.registered()
    const ok = h.broker({ broker_id: 5, cluster_id: cluster.cluster_id })
    await ok.registered()
    ok.call.write({ register: { broker_id: 5, host: 'h', port: 1 } })
    expect((await ok.error()).error_code).toBe(errorId('INVALID_REQUEST'))
    await waitFor(() => ok.ended, 'stream end after a second register')
    // A stale epoch in a heartbeat.
    early.heartbeat('999999')
    expect((await early.error()).error_code).toBe(errorId('STALE_BROKER_EPOCH'))
    // Neither broker is live any more.
    await waitForAsync(async () => (await h.liveBrokers()).length === 0, 'both sessions to end')
  })

  it('refuses a second live registration of the same id without disturbing the first', async () => {
    const h = await startHarness()
    const [first] = await brokers(h, [7])
    const dup = h.broker({ broker_id: 7 })
    expect((await dup.error()).error_code).toBe(errorId('DUPLICATE_BROKER_REGISTRATION'))
    await waitFor(() => dup.ended, 'the duplicate stream ends')
    first!.heartbeat()
    await waitFor(() => first!.messages.some((m) => m.kind === 'heartbeat_ack'), 'first session still alive')
    // Once the first session is gone, the id may register again with a larger epoch.
    first!.end()
    await waitForAsync(async () => (await h.liveBrokers()).length === 0, 'the first session to end')
    const again = h.broker({ broker_id: 7 })
    expect(BigInt(await again.registered())).toBeGreaterThan(BigInt(first!.epoch))
  })

  it("moves leadership when a leader's stream closes, goes offline without live ISR, and recovers", async () => {
    const h = await startHarness()
    const [b1, b2, b3] = await brokers(h, [1, 2, 3])
    await createTopic(h, 'fo', [
      [1, 2],
      [2, 3],
    ])
    b1!.end() // broker 1 leaves: partition 0 moves to 2
    await waitFor(() => b2!.view().partitions.get('fo-0')?.leader === 2, 'failover delta at broker 2')
    expect(await partition(h, 'fo', 0)).toMatchObject({ leader: 2, leader_epoch: 1, isr: [2], partition_epoch: 1 })
    expect(await partition(h, 'fo', 1)).toMatchObject({ leader: 2, leader_epoch: 0, isr: [2, 3], partition_epoch: 0 })
    expect(b3!.view().brokers).toEqual([2, 3])
    b2!.cancel() // broker 2 dies: p0 has no live ISR member -> offline, ISR keeps 2; p1 moves to 3
    await waitFor(() => b3!.view().partitions.get('fo-0')?.leader === -1, 'offline delta')
    expect(await partition(h, 'fo', 0)).toMatchObject({ leader: -1, leader_epoch: 2, isr: [2] })
    expect(await partition(h, 'fo', 1)).toMatchObject({ leader: 3, leader_epoch: 1, isr: [3] })
    // Broker 1 returns: not in the ISR, so p0 stays offline. Broker 2 returns: it leads p0 again.
    await brokers(h, [1])
    expect((await partition(h, 'fo', 0)).leader).toBe(-1)
    await brokers(h, [2])
    await waitFor(() => b3!.view().partitions.get('fo-0')?.leader === 2, 'recovery delta')
    expect(await partition(h, 'fo', 0)).toMatchObject({ leader: 2, leader_epoch: 3, isr: [2] })
  })

  it('ends a session whose heartbeats stop, with META_SESSION_EXPIRED, and moves its partitions', async () => {
    const h = await startHarness()
    const quiet = h.broker({ broker_id: 1, session_timeout_ms: 150 })
    await quiet.registered()
    const [b2] = await brokers(h, [2])
    await createTopic(h, 'hb', [[1, 2]])
    // Broker 2 keeps heartbeating; broker 1 is silent.
    const timer = setInterval(() => {
      b2!.heartbeat()
    }, 30)
    try {
      expect((await quiet.error()).error_code).toBe(errorId('META_SESSION_EXPIRED'))
      await waitFor(() => quiet.ended, 'the expired stream ends')
      await waitFor(() => b2!.view().partitions.get('hb-0')?.leader === 2, 'failover after expiry')
    } finally {
      clearInterval(timer)
    }
  })

  it('unclean.leader.election.enable lets an out-of-sync replica lead', async () => {
    const h = await startHarness()
    const [b1, b2] = await brokers(h, [1, 2])
    await createTopic(h, 'dirty', [[1, 2]], { 'unclean.leader.election.enable': 'true' })
    await createTopic(h, 'clean', [[1, 2]])
    const shrink = async (topic: string): Promise<AlterRes> =>
      await h.call<AlterRes>('AlterPartition', {
        broker_id: 1,
        broker_epoch: b1!.epoch,
        topic,
        partition: 0,
        leader_epoch: 0,
        partition_epoch: 0,
        new_isr: [1],
      })
    expect((await shrink('dirty')).error_code).toBe(0)
    expect((await shrink('clean')).error_code).toBe(0)
    b1!.cancel()
    await waitFor(() => b2!.view().partitions.get('dirty-0')?.leader === 2, 'unclean election')
    expect(await partition(h, 'dirty')).toMatchObject({ leader: 2, isr: [2] })
    expect(await partition(h, 'clean')).toMatchObject({ leader: -1, isr: [1] })
  })

  it('AlterPartition accepts ISR changes only from the current leader with current epochs', async () => {
    const h = await startHarness()
    const [b1, b2] = await brokers(h, [1, 2, 3])
    await createTopic(h, 'isr', [[1, 2, 3]])
    const alter = async (over: Partial<wire.AlterPartitionRequest>): Promise<AlterRes> =>
      await h.call<AlterRes>('AlterPartition', {
        broker_id: 1,
        broker_epoch: b1!.epoch,
        topic: 'isr',
        partition: 0,
        leader_epoch: 0,
        partition_epoch: 0,
        new_isr: [1, 2],
        ...over,
      })
    expect((await alter({ broker_epoch: '12345' })).error_code).toBe(errorId('STALE_BROKER_EPOCH'))
    expect((await alter({ broker_id: 2, broker_epoch: b2!.epoch })).error_code).toBe(errorId('INVALID_REQUEST'))
    expect((await alter({ leader_epoch: -1 })).error_code).toBe(errorId('FENCED_LEADER_EPOCH'))
    expect((await alter({ leader_epoch: 5 })).error_code).toBe(errorId('UNKNOWN_LEADER_EPOCH'))
    expect((await alter({ partition_epoch: 3 })).error_code).toBe(errorId('FENCED_LEADER_EPOCH'))
    expect((await alter({ new_isr: [2, 3] })).error_code).toBe(errorId('INVALID_REQUEST'))
    expect((await alter({ new_isr: [1, 4] })).error_code).toBe(errorId('INVALID_REQUEST'))
    expect((await alter({ new_isr: [1, 1] })).error_code).toBe(errorId('INVALID_REQUEST'))
    expect((await alter({ topic: 'ghost' })).error_code).toBe(errorId('UNKNOWN_TOPIC_OR_PARTITION'))
    expect((await alter({ partition: 9 })).error_code).toBe(errorId('UNKNOWN_TOPIC_OR_PARTITION'))
    expect(await partition(h, 'isr')).toMatchObject({ isr: [1, 2, 3], partition_epoch: 0 })
    const ok = await alter({})
    expect(ok).toMatchObject({ error_code: 0, state: { leader: 1, leader_epoch: 0, isr: [1, 2], partition_epoch: 1 } })
    await waitFor(() => b2!.view().partitions.get('isr-0')?.partition_epoch === 1, 'ISR delta')
    // The old partition epoch is now stale.
    expect((await alter({ new_isr: [1] })).error_code).toBe(errorId('FENCED_LEADER_EPOCH'))
  })

  it('ElectLeaders moves leadership back to the preferred replica', async () => {
    const h = await startHarness()
    const [b1, b2] = await brokers(h, [1, 2])
    await createTopic(h, 'pref', [[1, 2]])
    b1!.cancel()
    await waitFor(() => b2!.view().partitions.get('pref-0')?.leader === 2, 'failover')
    type ElectRes = wire.ElectLeadersResponse__Output
    const elect = async (): Promise<wire.ElectLeadersResult__Output> =>
      (await h.call<ElectRes>('ElectLeaders', { election_type: 0, partitions: [{ topic: 'pref', partitions: [0] }] }))
        .results[0]!
    const [b1again] = await brokers(h, [1])
    expect((await elect()).error_code).toBe(errorId('PREFERRED_LEADER_NOT_AVAILABLE')) // back, but not in sync
    const st = await partition(h, 'pref')
    const grow = await h.call<AlterRes>('AlterPartition', {
      broker_id: 2,
      broker_epoch: b2!.epoch,
      topic: 'pref',
      partition: 0,
      leader_epoch: st.leader_epoch,
      partition_epoch: st.partition_epoch,
      new_isr: [2, 1],
    })
    expect(grow.error_code).toBe(0)
    expect(await elect()).toMatchObject({ error_code: 0, leader: 1 })
    await waitFor(() => b1again!.view().partitions.get('pref-0')?.leader === 1, 'preferred leader delta')
    expect(await elect()).toMatchObject({ error_code: errorId('ELECTION_NOT_NEEDED'), leader: 1 })
    const unknown = await h.call<ElectRes>('ElectLeaders', {
      election_type: 0,
      partitions: [{ topic: 'ghost', partitions: [0] }],
    })
    expect(unknown.results[0]!.error_code).toBe(errorId('UNKNOWN_TOPIC_OR_PARTITION'))
  })

  it('after a restart, brokers that do not come back within the session timeout are lost', async () => {
    const h = await startHarness({ brokerSessionTimeoutMs: 60_000 })
    await brokers(h, [1, 2])
    await createTopic(h, 'grace', [[1, 2]])
    // A clean stop ends the sessions without elections; broker 1 then never registers again.
    // The grace period after the restart is the default session timeout (1.5 s); broker 2 asks
    // for a long timeout of its own, so only broker 1's absence can move leadership.
    await h.restart({ brokerSessionTimeoutMs: 1500 })
    expect(await partition(h, 'grace')).toMatchObject({ leader: 1, leader_epoch: 0, isr: [1, 2] })
    const [b2] = await brokers(h, [2], 60_000)
    await waitFor(
      () => b2!.view().partitions.get('grace-0')?.leader === 2,
      'leadership moves once the grace period ends',
    )
    expect(await partition(h, 'grace')).toMatchObject({ leader: 2, leader_epoch: 1, isr: [2] })
  })
})
