/**
 * The broker's Kafka group handlers (FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
 * LeaveGroup, OffsetCommit, OffsetFetch, DescribeGroups, ListGroups, DeleteGroups) against a real
 * metadata service and broker, through the codecs at each API's versions. The group and the
 * offsets they reach are the SDK's: the SDK's admin sees Kafka members and commits, and Kafka
 * OffsetFetch sees what the SDK committed.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeAssignment, encodeSubscription, errorId, kafka } from '@sluice/protocol'
import {
  deleteGroupsHandler,
  describeGroupsHandler,
  findCoordinatorHandler,
  heartbeatHandler,
  joinGroupHandler,
  leaveGroupHandler,
  listGroupsHandler,
  offsetCommitHandler,
  offsetFetchHandler,
  syncGroupHandler,
  type KafkaRequestContext,
} from '@sluice/broker/internal'
import { createTopicWithLeaders, startRealCluster, until, type RealCluster } from '../../src/client/real-cluster.js'
import { KAFKA_HOST, KAFKA_PORT, kafkaCall, kafkaContext } from '../../src/broker/kafka-handler-calls.js'

let cluster: RealCluster

beforeAll(async () => {
  cluster = await startRealCluster({
    prefix: 'sluice-kafka-groups-',
    brokers: 1,
    metadata: {
      groupCoordinator: {
        minSessionTimeoutMs: 100,
        initialRebalanceDelayMs: 50,
        sweepIntervalMs: 20,
        offsetsTopicNumPartitions: 2,
        offsetsTopicReplicationFactor: 1,
      },
    },
  })
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
})

const newGroup = (): string => `g-${randomUUID().slice(0, 8)}`

function ctx(clientId = 'kafka-test-client'): KafkaRequestContext {
  return kafkaContext(cluster.brokers[0]!, clientId)
}

const NONE = 0
const code = (name: Parameters<typeof errorId>[0]): number => errorId(name)

/** JoinGroup v5: the first try gets MEMBER_ID_REQUIRED with the id to come back with. */
async function memberIdFor(c: KafkaRequestContext, groupId: string, topic: string): Promise<string> {
  const res = await kafkaCall(joinGroupHandler, kafka.JoinGroupApi, 5, joinInput(groupId, '', topic), c)
  expect(res.errorCode).toBe(code('MEMBER_ID_REQUIRED'))
  expect(res.memberId).not.toBe('')
  return res.memberId
}

function joinInput(groupId: string, memberId: string, topic: string): kafka.JoinGroupRequestInput {
  return {
    groupId,
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 10_000,
    memberId,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: encodeSubscription({ topics: [topic] }) }],
  }
}

describe('FindCoordinator', () => {
  it('v0 names this broker for a group', async () => {
    const res = await kafkaCall(findCoordinatorHandler, kafka.FindCoordinatorApi, 0, { key: newGroup() }, ctx())
    expect(res).toMatchObject({ errorCode: NONE, nodeId: 1, host: KAFKA_HOST, port: KAFKA_PORT })
  })

  it('v4 answers every key of the batch, and refuses transaction coordinators', async () => {
    const keys = [newGroup(), newGroup()]
    const res = await kafkaCall(
      findCoordinatorHandler,
      kafka.FindCoordinatorApi,
      4,
      { keyType: 0, coordinatorKeys: keys },
      ctx(),
    )
    expect(res.coordinators.map((c) => [c.key, c.nodeId, c.host, c.port, c.errorCode])).toEqual(
      keys.map((k) => [k, 1, KAFKA_HOST, KAFKA_PORT, NONE]),
    )
    const txn = await kafkaCall(
      findCoordinatorHandler,
      kafka.FindCoordinatorApi,
      4,
      { keyType: 1, coordinatorKeys: ['txn-1'] },
      ctx(),
    )
    expect(txn.coordinators[0]).toMatchObject({ key: 'txn-1', nodeId: -1, errorCode: code('UNSUPPORTED_VERSION') })
    expect(txn.coordinators[0]!.errorMessage).toMatch(/transactions/)
  })
})

describe('a group of two Kafka members', () => {
  it('joins, syncs, heartbeats and leaves; the SDK and Kafka describe and list it alike', async () => {
    const topic = `t-${randomUUID().slice(0, 8)}`
    await createTopicWithLeaders(cluster.client, topic, 2)
    const groupId = newGroup()
    const a = ctx('member-a')
    const b = ctx('member-b')

    // A forms the group alone: generation 1, A leads.
    const idA = await memberIdFor(a, groupId, topic)
    const joinedA = await kafkaCall(joinGroupHandler, kafka.JoinGroupApi, 5, joinInput(groupId, idA, topic), a)
    expect(joinedA).toMatchObject({ errorCode: NONE, leader: idA, memberId: idA, protocolName: 'range' })
    const gen1 = joinedA.generationId
    const syncA = await kafkaCall(
      syncGroupHandler,
      kafka.SyncGroupApi,
      3,
      {
        groupId,
        generationId: gen1,
        memberId: idA,
        assignments: [
          {
            memberId: idA,
            assignment: encodeAssignment({
              partitions: [
                { topic, partition: 0 },
                { topic, partition: 1 },
              ],
            }),
          },
        ],
      },
      a,
    )
    expect(syncA.errorCode).toBe(NONE)

    // B's join waits in the rebalance until A rejoins, which A learns of from its heartbeat.
    const idB = await memberIdFor(b, groupId, topic)
    let bSettled = false
    const joiningB = kafkaCall(joinGroupHandler, kafka.JoinGroupApi, 7, joinInput(groupId, idB, topic), b).finally(
      () => {
        bSettled = true
      },
    )
    await until('A is told to rejoin', async () => {
      const hb = await kafkaCall(
        heartbeatHandler,
        kafka.HeartbeatApi,
        4,
        { groupId, generationId: gen1, memberId: idA },
        a,
      )
      return hb.errorCode === code('REBALANCE_IN_PROGRESS')
    })
    expect(bSettled).toBe(false)
    const [rejoinedA, joinedB] = await Promise.all([
      kafkaCall(
        joinGroupHandler,
        kafka.JoinGroupApi,
        0,
        { ...joinInput(groupId, idA, topic), sessionTimeoutMs: 10_000 },
        a,
      ),
      joiningB,
    ])
    expect(rejoinedA.errorCode).toBe(NONE)
    expect(joinedB).toMatchObject({ errorCode: NONE, protocolType: 'consumer', protocolName: 'range' })
    expect(joinedB.generationId).toBe(rejoinedA.generationId)
    expect(joinedB.generationId).toBeGreaterThan(gen1)
    const leaderAnswer = [rejoinedA, joinedB].find((r) => r.memberId === r.leader)!
    expect(leaderAnswer.members.map((m) => m.memberId).sort()).toEqual([idA, idB].sort())
    const gen2 = joinedB.generationId

    // The leader assigns one partition each; the follower's sync waits for the leader's.
    const leaderCtx = leaderAnswer.memberId === idA ? a : b
    const followerId = leaderAnswer.memberId === idA ? idB : idA
    const followerCtx = leaderAnswer.memberId === idA ? b : a
    const assignments = [
      { memberId: leaderAnswer.memberId, assignment: encodeAssignment({ partitions: [{ topic, partition: 0 }] }) },
      { memberId: followerId, assignment: encodeAssignment({ partitions: [{ topic, partition: 1 }] }) },
    ]
    const [leaderSync, followerSync] = await Promise.all([
      kafkaCall(
        syncGroupHandler,
        kafka.SyncGroupApi,
        5,
        {
          groupId,
          generationId: gen2,
          memberId: leaderAnswer.memberId,
          protocolType: 'consumer',
          protocolName: 'range',
          assignments,
        },
        leaderCtx,
      ),
      kafkaCall(
        syncGroupHandler,
        kafka.SyncGroupApi,
        0,
        { groupId, generationId: gen2, memberId: followerId },
        followerCtx,
      ),
    ])
    expect(leaderSync).toMatchObject({ errorCode: NONE, protocolType: 'consumer', protocolName: 'range' })
    expect(leaderSync.assignment.equals(assignments[0]!.assignment)).toBe(true)
    expect(followerSync.errorCode).toBe(NONE)
    expect(followerSync.assignment.equals(assignments[1]!.assignment)).toBe(true)
    for (const [id, c] of [
      [idA, a],
      [idB, b],
    ] as const) {
      const hb = await kafkaCall(
        heartbeatHandler,
        kafka.HeartbeatApi,
        0,
        { groupId, generationId: gen2, memberId: id },
        c,
      )
      expect(hb.errorCode).toBe(NONE)
    }

    // Kafka's DescribeGroups and ListGroups, and the SDK's admin, see the same two members.
    const described = await kafkaCall(describeGroupsHandler, kafka.DescribeGroupsApi, 5, { groups: [groupId] }, a)
    const g = described.groups[0]!
    expect(g).toMatchObject({
      errorCode: NONE,
      groupId,
      groupState: 'Stable',
      protocolType: 'consumer',
      protocolData: 'range',
    })
    expect(g.members.map((m) => [m.memberId, m.clientId, m.clientHost]).sort()).toEqual(
      [
        [idA, 'member-a', '127.0.0.1'],
        [idB, 'member-b', '127.0.0.1'],
      ].sort(),
    )
    const listed = await kafkaCall(listGroupsHandler, kafka.ListGroupsApi, 4, { statesFilter: ['Stable'] }, a)
    expect(listed.errorCode).toBe(NONE)
    expect(listed.groups).toContainEqual({ groupId, protocolType: 'consumer', groupState: 'Stable', groupType: '' })
    const listedV0 = await kafkaCall(listGroupsHandler, kafka.ListGroupsApi, 0, {}, a)
    expect(listedV0.groups.map((x) => x.groupId)).toContain(groupId)
    const [sdkView] = await cluster.client.admin().describeGroups([groupId])
    expect(sdkView!.state).toBe('Stable')
    expect(sdkView!.members.map((m) => [m.memberId, m.clientId, m.assignment]).sort()).toEqual(
      [
        [leaderAnswer.memberId, leaderCtx.clientId, [{ topic, partition: 0 }]],
        [followerId, followerCtx.clientId, [{ topic, partition: 1 }]],
      ].sort(),
    )
    expect(sdkView!.members.every((m) => m.subscription.includes(topic))).toBe(true)

    // B leaves with v4 (batched), A with v1 (one member, top-level error).
    const leftB = await kafkaCall(
      leaveGroupHandler,
      kafka.LeaveGroupApi,
      4,
      { groupId, members: [{ memberId: idB }] },
      b,
    )
    expect(leftB.errorCode).toBe(NONE)
    expect(leftB.members).toEqual([{ memberId: idB, groupInstanceId: null, errorCode: NONE }])
    const leftA = await kafkaCall(leaveGroupHandler, kafka.LeaveGroupApi, 1, { groupId, memberId: idA }, a)
    expect(leftA.errorCode).toBe(NONE)
    const again = await kafkaCall(leaveGroupHandler, kafka.LeaveGroupApi, 0, { groupId, memberId: idA }, a)
    expect(again.errorCode).toBe(code('UNKNOWN_MEMBER_ID'))
    const [empty] = await cluster.client.admin().describeGroups([groupId])
    expect(empty!.state).toBe('Empty')
    expect(empty!.members).toEqual([])
  }, 60_000)

  it('JoinGroup v3 and older never see MEMBER_ID_REQUIRED: the broker rejoins with the id', async () => {
    const topic = `t-${randomUUID().slice(0, 8)}`
    const groupId = newGroup()
    const c = ctx()
    const res = await kafkaCall(joinGroupHandler, kafka.JoinGroupApi, 2, joinInput(groupId, '', topic), c)
    expect(res.errorCode).toBe(NONE)
    expect(res.memberId).not.toBe('')
    expect(res.leader).toBe(res.memberId)
    expect(res.protocolName).toBe('range')
    await kafkaCall(leaveGroupHandler, kafka.LeaveGroupApi, 2, { groupId, memberId: res.memberId }, c)
  })

  it('answers stale members with the coordinator’s errors', async () => {
    const groupId = newGroup()
    const hb = await kafkaCall(
      heartbeatHandler,
      kafka.HeartbeatApi,
      2,
      { groupId, generationId: 1, memberId: 'nobody' },
      ctx(),
    )
    expect(hb.errorCode).toBe(code('UNKNOWN_MEMBER_ID'))
    const sync = await kafkaCall(
      syncGroupHandler,
      kafka.SyncGroupApi,
      4,
      { groupId, generationId: 1, memberId: 'nobody' },
      ctx(),
    )
    expect(sync.errorCode).toBe(code('UNKNOWN_MEMBER_ID'))
    const bad = await kafkaCall(
      joinGroupHandler,
      kafka.JoinGroupApi,
      6,
      { ...joinInput(groupId, '', 't'), sessionTimeoutMs: 1 },
      ctx(),
    )
    expect(bad.errorCode).toBe(code('INVALID_SESSION_TIMEOUT'))
    expect(bad.generationId).toBe(-1)
  })
})

describe('committed offsets', () => {
  it('Kafka commits are the SDK’s committed offsets, and SDK commits are what Kafka fetches', async () => {
    const topic = `t-${randomUUID().slice(0, 8)}`
    await createTopicWithLeaders(cluster.client, topic, 2)
    const producer = cluster.client.producer({ lingerMs: 1 })
    await producer.send({
      topic,
      records: Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: `v${i}`, partition: i % 2 })),
    })
    await producer.close()
    const groupId = newGroup()
    const c = ctx()

    // An admin-style commit (no member, generation -1) from Kafka OffsetCommit v2 and v8.
    const v2 = await kafkaCall(
      offsetCommitHandler,
      kafka.OffsetCommitApi,
      2,
      {
        groupId,
        generationIdOrMemberEpoch: -1,
        memberId: '',
        retentionTimeMs: -1n,
        topics: [
          { name: topic, partitions: [{ partitionIndex: 0, committedOffset: 3n, committedMetadata: 'from-v2' }] },
        ],
      },
      c,
    )
    expect(v2.topics).toEqual([{ name: topic, partitions: [{ partitionIndex: 0, errorCode: NONE }] }])
    const v8 = await kafkaCall(
      offsetCommitHandler,
      kafka.OffsetCommitApi,
      8,
      {
        groupId,
        generationIdOrMemberEpoch: -1,
        memberId: '',
        topics: [
          {
            name: topic,
            partitions: [{ partitionIndex: 1, committedOffset: 7n, committedLeaderEpoch: 0, committedMetadata: null }],
          },
        ],
      },
      c,
    )
    expect(v8.topics[0]!.partitions[0]!.errorCode).toBe(NONE)
    expect(await cluster.client.admin().fetchOffsets(groupId)).toEqual([
      { topic, partition: 0, offset: 3n, metadata: 'from-v2' },
      { topic, partition: 1, offset: 7n, metadata: '' },
    ])

    // The SDK moves partition 0; Kafka OffsetFetch v1 (explicit partitions), v7 (all) and v8 (batched) see it.
    await cluster.client.admin().resetOffsets(groupId, { topic, partitions: [0], to: { offset: 9n } })
    const f1 = await kafkaCall(
      offsetFetchHandler,
      kafka.OffsetFetchApi,
      1,
      { groupId, topics: [{ name: topic, partitionIndexes: [0, 1] }] },
      c,
    )
    expect(f1.topics[0]!.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.errorCode])).toEqual([
      [0, 9n, NONE],
      [1, 7n, NONE],
    ])
    const f7 = await kafkaCall(
      offsetFetchHandler,
      kafka.OffsetFetchApi,
      7,
      { groupId, topics: null, requireStable: true },
      c,
    )
    expect(f7.errorCode).toBe(NONE)
    expect(
      f7.topics.flatMap((t) =>
        t.partitions.map((p) => [t.name, p.partitionIndex, p.committedOffset, p.committedLeaderEpoch]),
      ),
    ).toEqual([
      [topic, 0, 9n, -1],
      [topic, 1, 7n, 0],
    ])
    const unknownGroup = newGroup()
    const f8 = await kafkaCall(
      offsetFetchHandler,
      kafka.OffsetFetchApi,
      8,
      {
        groups: [
          { groupId, topics: [{ name: topic, partitionIndexes: [1] }] },
          { groupId: unknownGroup, topics: null },
          { groupId, topics: [] },
        ],
      },
      c,
    )
    expect(
      f8.groups.map((g) => [
        g.groupId,
        g.errorCode,
        g.topics.flatMap((t) => t.partitions.map((p) => p.committedOffset)),
      ]),
    ).toEqual([
      [groupId, NONE, [7n]],
      [unknownGroup, NONE, []],
      [groupId, NONE, []],
    ])

    // A member that is not in the group cannot commit; every partition says so.
    const stale = await kafkaCall(
      offsetCommitHandler,
      kafka.OffsetCommitApi,
      5,
      {
        groupId,
        generationIdOrMemberEpoch: 4,
        memberId: 'ghost',
        topics: [
          {
            name: topic,
            partitions: [
              { partitionIndex: 0, committedOffset: 1n },
              { partitionIndex: 1, committedOffset: 1n },
            ],
          },
        ],
      },
      c,
    )
    expect(stale.topics[0]!.partitions.map((p) => p.errorCode)).toEqual([
      code('UNKNOWN_MEMBER_ID'),
      code('UNKNOWN_MEMBER_ID'),
    ])

    // DeleteGroups removes the empty group and its offsets; an unknown group is GROUP_ID_NOT_FOUND.
    const missing = newGroup()
    const deleted = await kafkaCall(
      deleteGroupsHandler,
      kafka.DeleteGroupsApi,
      2,
      { groupsNames: [groupId, missing] },
      c,
    )
    expect(deleted.results).toEqual([
      { groupId, errorCode: NONE },
      { groupId: missing, errorCode: code('GROUP_ID_NOT_FOUND') },
    ])
    expect(await cluster.client.admin().fetchOffsets(groupId)).toEqual([])
    const gone = await kafkaCall(describeGroupsHandler, kafka.DescribeGroupsApi, 0, { groups: [groupId] }, c)
    expect(gone.groups[0]).toMatchObject({ errorCode: NONE, groupId, groupState: 'Dead', members: [] })
  }, 60_000)

  it('DeleteGroups refuses a group with members', async () => {
    const groupId = newGroup()
    const c = ctx()
    const joined = await kafkaCall(joinGroupHandler, kafka.JoinGroupApi, 3, joinInput(groupId, '', 't-x'), c)
    expect(joined.errorCode).toBe(NONE)
    const res = await kafkaCall(deleteGroupsHandler, kafka.DeleteGroupsApi, 0, { groupsNames: [groupId] }, c)
    expect(res.results).toEqual([{ groupId, errorCode: code('NON_EMPTY_GROUP') }])
    await kafkaCall(leaveGroupHandler, kafka.LeaveGroupApi, 3, { groupId, members: [{ memberId: joined.memberId }] }, c)
  })
})

describe('the metadata forwarder', () => {
  it('moves past an endpoint that does not answer, and answers COORDINATOR_NOT_AVAILABLE when none does', async () => {
    const live = ctx()
    const dead = '127.0.0.1:1'
    const past = { ...live, metadataEndpoints: () => [dead, ...live.metadataEndpoints()] }
    const listed = await kafkaCall(listGroupsHandler, kafka.ListGroupsApi, 3, {}, past)
    expect(listed.errorCode).toBe(NONE)
    const none = { ...live, metadataEndpoints: () => [dead] }
    const groupId = newGroup()
    const hb = await kafkaCall(
      heartbeatHandler,
      kafka.HeartbeatApi,
      1,
      { groupId, generationId: 1, memberId: 'm' },
      none,
    )
    expect(hb.errorCode).toBe(code('COORDINATOR_NOT_AVAILABLE'))
    const commit = await kafkaCall(
      offsetCommitHandler,
      kafka.OffsetCommitApi,
      6,
      { groupId, memberId: '', topics: [{ name: 't', partitions: [{ partitionIndex: 3, committedOffset: 1n }] }] },
      none,
    )
    expect(commit.topics).toEqual([
      { name: 't', partitions: [{ partitionIndex: 3, errorCode: code('COORDINATOR_NOT_AVAILABLE') }] },
    ])
    const fetched = await kafkaCall(
      offsetFetchHandler,
      kafka.OffsetFetchApi,
      1,
      { groupId, topics: [{ name: 't', partitionIndexes: [3] }] },
      none,
    )
    expect(fetched.topics[0]!.partitions[0]).toMatchObject({
      committedOffset: -1n,
      errorCode: code('COORDINATOR_NOT_AVAILABLE'),
    })
  })
})
