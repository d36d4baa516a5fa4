/**
 * Committed offsets against a real in-process cluster (testkit): commits go through the produce
 * path into __consumer_offsets, are checked against the group's generation, survive a restart
 * of the metadata service (the cache is rebuilt from the topic), and expire for empty groups.
 */
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { connect } from '@sluice/client'
import {
  OFFSETS_TOPIC,
  decodeOffsetKey,
  decodeOffsetValue,
  partitionForGroup,
  startMetadataServerInternal,
  type GroupCoordinatorOptions,
  type MetadataServerHandle,
} from '@sluice/metadata/internal'
import {
  call,
  codeOf,
  groupClient,
  heartbeatLoop,
  join,
  joinNew,
  sync,
  waitUntil,
  type GroupClient,
} from '@sluice/metadata/test-support'
import { encodeAssignment, errorNameFromId, type wire } from '@sluice/protocol'
import { startCluster, type Cluster } from '@sluice/testkit'

const GROUP_OPTIONS: GroupCoordinatorOptions = {
  minSessionTimeoutMs: 50,
  initialRebalanceDelayMs: 0,
  sweepIntervalMs: 10,
  offsetsTopicNumPartitions: 4,
}

async function cluster(groupCoordinator: GroupCoordinatorOptions = {}): Promise<{ cluster: Cluster; c: GroupClient }> {
  const cl = await startCluster({
    brokers: 1,
    metadataOptions: { groupCoordinator: { ...GROUP_OPTIONS, ...groupCoordinator } },
  })
  onTestFinished(async () => {
    await cl.stop()
  })
  const client = await connect({ bootstrap: cl.bootstrap })
  onTestFinished(async () => {
    await client.close()
  })
  await client.admin().createTopics([{ name: 'orders', numPartitions: 3 }])
  return { cluster: cl, c: groupClient(cl.metadata.endpoint) }
}

function commitRequest(
  group: string,
  memberId: string,
  generation: number,
  offsets: Array<[number, number | string]>,
  topic = 'orders',
): wire.OffsetCommitRequest {
  return {
    group_id: group,
    generation_id: generation,
    member_id: memberId,
    topics: [
      {
        topic,
        partitions: offsets.map(([partition, offset]) => ({
          partition,
          committed_offset: String(offset),
          committed_leader_epoch: 0,
          metadata: `m${partition}`,
        })),
      },
    ],
  }
}

async function commit(c: GroupClient, req: wire.OffsetCommitRequest): Promise<string[]> {
  const res = await call<wire.OffsetCommitResponse__Output>(c, 'OffsetCommit', req)
  return res.topics.flatMap((t) => t.partitions.map((p) => errorNameFromId(p.error_code)))
}

async function fetchOffsets(
  c: GroupClient,
  group: string,
  partitions: number[] = [0, 1, 2],
): Promise<wire.OffsetFetchResponse__Output> {
  return await call<wire.OffsetFetchResponse__Output>(c, 'OffsetFetch', {
    group_id: group,
    topics: [{ topic: 'orders', partitions }],
  })
}

const offsetsOf = (r: wire.OffsetFetchResponse__Output): string[] =>
  r.topics.flatMap((t) => t.partitions.map((p) => p.committed_offset))

async function stableMember(c: GroupClient, group: string): Promise<{ memberId: string; generation: number }> {
  const r = await joinNew(c, { group, sessionMs: 5000 })
  await sync(c, group, r.member_id, r.generation_id, { [r.member_id]: 'all' })
  return { memberId: r.member_id, generation: r.generation_id }
}

describe('committed offsets in __consumer_offsets', () => {
  it("commits from the current generation are written to the group's partition of the compacted topic and fetched; stale or foreign commits are rejected", async () => {
    const { cluster: cl, c } = await cluster()
    const { memberId, generation } = await stableMember(c, 'my-group')
    expect(
      await commit(
        c,
        commitRequest('my-group', memberId, generation, [
          [0, 10],
          [1, 20],
        ]),
      ),
    ).toEqual(['NONE', 'NONE'])
    const fetched = await fetchOffsets(c, 'my-group')
    expect(
      fetched.topics[0]!.partitions.map((p) => [
        p.partition,
        p.committed_offset,
        p.metadata,
        errorNameFromId(p.error_code),
      ]),
    ).toEqual([
      [0, '10', 'm0', 'NONE'],
      [1, '20', 'm1', 'NONE'],
      [2, '-1', '', 'NONE'],
    ])

    // The topic was created on first use: compacted, 4 partitions, and holds Kafka-format records.
    const client = await connect({ bootstrap: cl.bootstrap })
    onTestFinished(async () => {
      await client.close()
    })
    const [desc] = await client.admin().describeTopics([OFFSETS_TOPIC], { includeInternal: true })
    expect(desc!.partitions).toHaveLength(4)
    expect(desc!.configs.find((x) => x.name === 'cleanup.policy')?.value).toBe('compact')
    const consumer = client.consumer({ offsetReset: 'earliest' })
    await consumer.assign([{ topic: OFFSETS_TOPIC, partition: partitionForGroup('my-group', 4) }])
    const seen: string[] = []
    for await (const m of consumer.messages()) {
      const k = decodeOffsetKey(m.key!)!
      const v = decodeOffsetValue(m.value!)!
      seen.push(`${k.group}/${k.topic}/${k.partition}=${v.offset}`)
      if (seen.length === 2) break
    }
    expect(seen).toEqual(['my-group/orders/0=10', 'my-group/orders/1=20'])

    // Stale generation, non-member, admin commit on an active group: typed errors, nothing changes.
    const rejoined = await join(c, { group: 'my-group', memberId, sessionMs: 5000, protocols: [['range', 'changed']] })
    expect(rejoined.generation_id).toBe(generation + 1)
    // This generation's assignment (Kafka's consumer-protocol bytes) gives the member partitions 0 and 1 only.
    const owned = encodeAssignment({
      partitions: [
        { topic: 'orders', partition: 0 },
        { topic: 'orders', partition: 1 },
      ],
    })
    await sync(c, 'my-group', memberId, rejoined.generation_id, { [memberId]: owned })
    expect(await commit(c, commitRequest('my-group', memberId, generation, [[0, 99]]))).toEqual(['ILLEGAL_GENERATION'])
    expect(await commit(c, commitRequest('my-group', 'intruder', rejoined.generation_id, [[0, 99]]))).toEqual([
      'UNKNOWN_MEMBER_ID',
    ])
    expect(await commit(c, commitRequest('my-group', '', -1, [[0, 99]]))).toEqual(['NON_EMPTY_GROUP'])
    // Per partition: a partition that does not exist or a negative offset fails alone.
    expect(
      await commit(
        c,
        commitRequest('my-group', memberId, rejoined.generation_id, [
          [0, 11],
          [7, 1],
          [1, -5],
        ]),
      ),
    ).toEqual(['NONE', 'UNKNOWN_TOPIC_OR_PARTITION', 'INVALID_REQUEST'])
    expect(
      await commit(c, commitRequest('my-group', memberId, rejoined.generation_id, [[0, 1]], 'no-such-topic')),
    ).toEqual(['UNKNOWN_TOPIC_OR_PARTITION'])
    // A partition the member was not assigned: PARTITION_NOT_ASSIGNED, and its offset stays as it was.
    expect(
      await commit(
        c,
        commitRequest('my-group', memberId, rejoined.generation_id, [
          [2, 5],
          [1, 20],
        ]),
      ),
    ).toEqual(['PARTITION_NOT_ASSIGNED', 'NONE'])
    expect(offsetsOf(await fetchOffsets(c, 'my-group'))).toEqual(['11', '20', '-1'])
    // Fetching every committed offset of the group.
    const all = await call<wire.OffsetFetchResponse__Output>(c, 'OffsetFetch', { group_id: 'my-group', topics: [] })
    expect(all.topics.map((t) => [t.topic, t.partitions.map((p) => p.committed_offset)])).toEqual([
      ['orders', ['11', '20']],
    ])
    expect(codeOf(await call<wire.OffsetFetchResponse__Output>(c, 'OffsetFetch', { group_id: '', topics: [] }))).toBe(
      'INVALID_GROUP_ID',
    )
  })

  it('after a metadata-service restart offsets are rebuilt from the topic; a member of the old incarnation cannot commit; deletions are tombstones', async () => {
    const { cluster: cl, c } = await cluster()
    const { memberId, generation } = await stableMember(c, 'resume')
    expect(
      await commit(
        c,
        commitRequest('resume', memberId, generation, [
          [0, 5],
          [2, 7],
        ]),
      ),
    ).toEqual(['NONE', 'NONE'])
    await stableMember(c, 'doomed')
    expect(await commit(c, commitRequest('doomed', '', -1, [[1, 3]]))).toEqual(['NON_EMPTY_GROUP'])

    const restart = async (): Promise<GroupClient> => {
      await current.stop()
      current = await startMetadataServerInternal({
        host: '127.0.0.1',
        port: cl.metadata.port,
        dataDir: path.join(cl.dataDir, 'metadata'),
        groupCoordinator: GROUP_OPTIONS,
      })
      return groupClient(current.endpoint)
    }
    let current: MetadataServerHandle = cl.metadata
    onTestFinished(async () => {
      await current.stop()
    })
    let c2 = await restart()
    // Until loaded the coordinator says so; it never answers with a wrong (missing) offset.
    const answers: string[] = []
    await waitUntil(
      async () => {
        const r = await fetchOffsets(c2, 'resume')
        answers.push(codeOf(r) === 'NONE' ? offsetsOf(r).join(',') : codeOf(r))
        return codeOf(r) === 'NONE'
      },
      'offsets to be loaded',
      20_000,
    )
    expect(new Set(answers)).toEqual(
      new Set(answers.length > 1 ? ['COORDINATOR_LOAD_IN_PROGRESS', '5,-1,7'] : ['5,-1,7']),
    )
    // The zombie from before the restart is not a member of anything now.
    expect(await commit(c2, commitRequest('resume', memberId, generation, [[0, 6]]))).toEqual(['UNKNOWN_MEMBER_ID'])
    expect(offsetsOf(await fetchOffsets(c2, 'resume'))).toEqual(['5', '-1', '7'])
    // The group exists through its offsets only: Empty, deletable; an admin commit is allowed.
    const listed = await call<wire.ListGroupsResponse__Output>(c2, 'ListGroups', {})
    expect(listed.groups.map((g) => [g.group_id, g.state])).toEqual([['resume', 'Empty']])
    expect(await commit(c2, commitRequest('resume', '', -1, [[1, 4]]))).toEqual(['NONE'])
    const del = await call<wire.DeleteGroupsResponse__Output>(c2, 'DeleteGroups', { group_ids: ['resume', 'doomed'] })
    expect(del.results.map((r) => errorNameFromId(r.error_code))).toEqual(['NONE', 'GROUP_ID_NOT_FOUND'])
    expect(offsetsOf(await fetchOffsets(c2, 'resume'))).toEqual(['-1', '-1', '-1'])

    c2 = await restart()
    await waitUntil(
      async () => codeOf(await fetchOffsets(c2, 'resume')) === 'NONE',
      'offsets to be loaded again',
      20_000,
    )
    expect(offsetsOf(await fetchOffsets(c2, 'resume'))).toEqual(['-1', '-1', '-1'])
    expect((await call<wire.ListGroupsResponse__Output>(c2, 'ListGroups', {})).groups).toEqual([])
  })

  it('offsets of an empty group expire after the retention; an active group keeps its offsets', async () => {
    const { c } = await cluster({ offsetsRetentionMs: 400, offsetsRetentionCheckIntervalMs: 50 })
    const active = await stableMember(c, 'active')
    const hb = heartbeatLoop(c, 'active', active.memberId, active.generation, 100)
    expect(await commit(c, commitRequest('active', active.memberId, active.generation, [[0, 1]]))).toEqual(['NONE'])
    const leaving = await stableMember(c, 'leaving')
    expect(await commit(c, commitRequest('leaving', leaving.memberId, leaving.generation, [[0, 2]]))).toEqual(['NONE'])
    await call(c, 'LeaveGroup', { group_id: 'leaving', members: [{ member_id: leaving.memberId }] })
    await waitUntil(
      async () => offsetsOf(await fetchOffsets(c, 'leaving', [0]))[0] === '-1',
      "the empty group's offsets to expire",
    )
    await waitUntil(
      async () =>
        (await call<wire.ListGroupsResponse__Output>(c, 'ListGroups', {})).groups.every(
          (g) => g.group_id !== 'leaving',
        ),
      'the expired group to go',
    )
    expect(offsetsOf(await fetchOffsets(c, 'active', [0]))).toEqual(['1'])
    expect(hb.results.every((r) => r === 'NONE')).toBe(true)
  })
})
