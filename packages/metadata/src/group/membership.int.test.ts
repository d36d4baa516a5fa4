/**
 * The GroupCoordinator service of a real metadata server over gRPC (no brokers needed for
 * membership): join/sync/heartbeat, liveness, static membership, admin requests, bad input.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join as joinPath } from 'node:path'
import * as grpc from '@grpc/grpc-js'
import { describe, expect, it, onTestFinished } from 'vitest'
import { errorId, errorNameFromId, type wire } from '@sluice/protocol'
import { startMetadataServerInternal } from '../server/metadata-server.js'
import type { GroupCoordinatorOptions } from './group-config.js'
import {
  call,
  codeOf,
  groupClient,
  heartbeat,
  heartbeatLoop,
  join,
  joinNew,
  sync,
  waitUntil,
  type GroupClient,
} from '../test-support/group-client.js'

let lastEndpoint = ''

async function startServer(groupCoordinator: GroupCoordinatorOptions = {}): Promise<GroupClient> {
  const dataDir = await mkdtemp(joinPath(tmpdir(), 'sluice-groups-'))
  const server = await startMetadataServerInternal({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    groupCoordinator: { minSessionTimeoutMs: 50, initialRebalanceDelayMs: 0, sweepIntervalMs: 10, ...groupCoordinator },
  })
  onTestFinished(async () => {
    await server.stop()
    await rm(dataDir, { recursive: true, force: true })
  })
  lastEndpoint = server.endpoint
  return groupClient(server.endpoint)
}

const text = (b: Buffer | Uint8Array): string => Buffer.from(b).toString()

/** Three members that joined within the initial delay, synced with assignments "A-<id>". */
async function groupOfThree(
  c: GroupClient,
  group: string,
  sessionMs = 1000,
  rebalanceMs = 2000,
): Promise<{ ids: string[]; leader: string; generation: number }> {
  const answers = await Promise.all(
    ['a', 'b', 'c'].map(async (clientId) => await joinNew(c, { group, clientId, sessionMs, rebalanceMs })),
  )
  const generation = answers[0]!.generation_id
  const leader = answers[0]!.leader
  const ids = answers.map((a) => a.member_id)
  const syncs = await Promise.all(
    ids.map(
      async (id) =>
        await sync(c, group, id, generation, id === leader ? Object.fromEntries(ids.map((m) => [m, `A-${m}`])) : {}),
    ),
  )
  ids.forEach((id, i) => {
    expect(text(syncs[i]!.assignment)).toBe(`A-${id}`)
  })
  return { ids, leader, generation }
}

describe('GroupCoordinator membership over gRPC', () => {
  it("three members join once (initial delay), the leader alone gets everyone's metadata, sync delivers the leader's assignments", async () => {
    const c = await startServer({ initialRebalanceDelayMs: 300 })
    const answers = await Promise.all(
      ['a', 'b', 'c'].map(async (clientId) => {
        const first = await join(c, { clientId })
        expect(codeOf(first)).toBe('MEMBER_ID_REQUIRED')
        expect(first.member_id).toMatch(new RegExp(`^${clientId}-[0-9a-f-]{36}$`))
        return await join(c, { clientId, memberId: first.member_id })
      }),
    )
    for (const a of answers)
      expect(a).toMatchObject({
        error_code: 0,
        generation_id: 1,
        protocol_type: 'consumer',
        protocol_name: 'range',
        leader: answers[0]!.leader,
      })
    const leader = answers.find((a) => a.member_id === a.leader)!
    expect(leader.members.map((m) => m.member_id).sort()).toEqual(answers.map((a) => a.member_id).sort())
    expect(leader.members.every((m) => text(m.metadata) === 'subscription' && m.client_host === '127.0.0.1')).toBe(true)
    expect(answers.filter((a) => a !== leader).every((a) => a.members.length === 0)).toBe(true)
    const ids = answers.map((a) => a.member_id)
    const syncs = await Promise.all(
      ids.map(
        async (id) =>
          await sync(c, 'g', id, 1, id === leader.member_id ? Object.fromEntries(ids.map((m) => [m, `to-${m}`])) : {}),
      ),
    )
    ids.forEach((id, i) => {
      expect(syncs[i]).toMatchObject({ error_code: 0, protocol_name: 'range' })
      expect(text(syncs[i]!.assignment)).toBe(`to-${id}`)
    })
    for (const id of ids) expect(await heartbeat(c, 'g', id, 1)).toBe('NONE')
    const described = await call<wire.DescribeGroupsResponse__Output>(c, 'DescribeGroups', {
      group_ids: ['g', 'missing'],
    })
    expect(described.groups[0]).toMatchObject({
      error_code: 0,
      state: 'Stable',
      protocol_name: 'range',
      generation_id: 1,
      leader: leader.member_id,
    })
    expect(described.groups[0]!.members.map((m) => [m.member_id, m.client_id, text(m.assignment)]).sort()).toEqual(
      answers.map((a, i) => [a.member_id, ['a', 'b', 'c'][i], `to-${a.member_id}`]).sort(),
    )
    expect(described.groups[1]).toMatchObject({ error_code: errorId('GROUP_ID_NOT_FOUND'), state: 'Dead' })
    const listed = await call<wire.ListGroupsResponse__Output>(c, 'ListGroups', { states: ['stable'] })
    expect(listed.groups).toEqual([{ group_id: 'g', protocol_type: 'consumer', state: 'Stable' }])
    expect((await call<wire.ListGroupsResponse__Output>(c, 'ListGroups', { states: ['Empty'] })).groups).toEqual([])
  })

  it('a member that stops heartbeating is removed after its session timeout; the others see REBALANCE_IN_PROGRESS and form a new generation', async () => {
    const c = await startServer({ initialRebalanceDelayMs: 200 })
    const { ids, generation } = await groupOfThree(c, 'g', 400)
    const [a, b, dead] = ids as [string, string, string]
    const hbA = heartbeatLoop(c, 'g', a, generation)
    const hbB = heartbeatLoop(c, 'g', b, generation)
    await waitUntil(
      () => hbA.results.includes('REBALANCE_IN_PROGRESS') && hbB.results.includes('REBALANCE_IN_PROGRESS'),
      'the survivors to be told to rejoin',
    )
    expect(hbA.results[0]).toBe('NONE')
    hbA.stop()
    hbB.stop()
    expect(await heartbeat(c, 'g', dead, generation)).toBe('UNKNOWN_MEMBER_ID')
    const [ra, rb] = await Promise.all([
      join(c, { memberId: a, sessionMs: 400 }),
      join(c, { memberId: b, sessionMs: 400 }),
    ])
    expect(ra.generation_id).toBe(generation + 1)
    expect(rb.generation_id).toBe(generation + 1)
    const leader = ra.leader === a ? ra : rb
    expect(leader.members.map((m) => m.member_id).sort()).toEqual([a, b].sort())
  })

  it('a member that does not rejoin within the rebalance timeout is dropped from the next generation', async () => {
    const c = await startServer({ initialRebalanceDelayMs: 200 })
    const { ids, leader, generation } = await groupOfThree(c, 'g', 5000, 300)
    const others = ids.filter((id) => id !== leader)
    const loops = others.map((id) => heartbeatLoop(c, 'g', id, generation))
    // The leader rejoining starts a rebalance; the others heartbeat (alive) but never rejoin.
    const r = await join(c, { memberId: leader, sessionMs: 5000, rebalanceMs: 300 })
    expect(r).toMatchObject({ error_code: 0, generation_id: generation + 1, leader })
    expect(r.members.map((m) => m.member_id)).toEqual([leader])
    for (const l of loops) expect(l.results).toContain('REBALANCE_IN_PROGRESS')
    for (const id of others) expect(await heartbeat(c, 'g', id, generation)).toBe('UNKNOWN_MEMBER_ID')
  })

  it('a static member restarting within its session timeout gets its assignment back without a rebalance; the old process is fenced', async () => {
    const c = await startServer({ initialRebalanceDelayMs: 200 })
    const [ra, rb] = await Promise.all([
      join(c, { instance: 'host-a', clientId: 'a' }),
      join(c, { instance: 'host-b', clientId: 'b' }),
    ])
    expect(ra.generation_id).toBe(1)
    const leaderId = ra.leader
    await Promise.all([
      sync(
        c,
        'g',
        ra.member_id,
        1,
        leaderId === ra.member_id ? { [ra.member_id]: 'pa', [rb.member_id]: 'pb' } : {},
        'host-a',
      ),
      sync(
        c,
        'g',
        rb.member_id,
        1,
        leaderId === rb.member_id ? { [ra.member_id]: 'pa', [rb.member_id]: 'pb' } : {},
        'host-b',
      ),
    ])
    const follower =
      leaderId === ra.member_id
        ? { r: rb, instance: 'host-b', clientId: 'b', part: 'pb' }
        : { r: ra, instance: 'host-a', clientId: 'a', part: 'pa' }
    const restarted = await join(c, { instance: follower.instance, clientId: follower.clientId })
    expect(restarted).toMatchObject({ error_code: 0, generation_id: 1, leader: leaderId, skip_assignment: false })
    expect(restarted.member_id).not.toBe(follower.r.member_id)
    const s = await sync(c, 'g', restarted.member_id, 1, {}, follower.instance)
    expect(text(s.assignment)).toBe(follower.part)
    expect(await heartbeat(c, 'g', leaderId, 1, leaderId === ra.member_id ? 'host-a' : 'host-b')).toBe('NONE')
    expect(await heartbeat(c, 'g', follower.r.member_id, 1, follower.instance)).toBe('FENCED_INSTANCE_ID')
    const d = await call<wire.DescribeGroupsResponse__Output>(c, 'DescribeGroups', { group_ids: ['g'] })
    expect(d.groups[0]).toMatchObject({ state: 'Stable', generation_id: 1 })
  })

  it('LeaveGroup removes a member at once and starts a rebalance; the last leaving empties the group; DeleteGroups then removes it', async () => {
    const c = await startServer()
    const r = await joinNew(c, { clientId: 'solo' })
    await sync(c, 'g', r.member_id, r.generation_id, { [r.member_id]: 'x' })
    const left = await call<wire.LeaveGroupResponse__Output>(c, 'LeaveGroup', {
      group_id: 'g',
      members: [{ member_id: r.member_id, reason: 'close' }, { member_id: 'ghost' }],
    })
    expect(left.members.map((m) => errorNameFromId(m.error_code))).toEqual(['NONE', 'UNKNOWN_MEMBER_ID'])
    const d = await call<wire.DescribeGroupsResponse__Output>(c, 'DescribeGroups', { group_ids: ['g'] })
    expect(d.groups[0]).toMatchObject({ state: 'Empty', generation_id: 2, members: [] })
    const nonEmpty = await joinNew(c, { group: 'busy' })
    expect(nonEmpty.error_code).toBe(0)
    const del = await call<wire.DeleteGroupsResponse__Output>(c, 'DeleteGroups', {
      group_ids: ['g', 'busy', 'never', ''],
    })
    expect(del.results.map((x) => [x.group_id, errorNameFromId(x.error_code)])).toEqual([
      ['g', 'NONE'],
      ['busy', 'NON_EMPTY_GROUP'],
      ['never', 'GROUP_ID_NOT_FOUND'],
      ['', 'INVALID_GROUP_ID'],
    ])
    const after = await call<wire.ListGroupsResponse__Output>(c, 'ListGroups', {})
    expect(after.groups.map((g) => g.group_id)).toEqual(['busy'])
  })

  it('bad input gets typed errors and changes nothing', async () => {
    const c = await startServer({ minSessionTimeoutMs: 100, maxSessionTimeoutMs: 10_000 })
    const r = await joinNew(c, { clientId: 'ok', protocols: [['range', 'm']] })
    await sync(c, 'g', r.member_id, 1, { [r.member_id]: 'mine' })
    const before = await call<wire.DescribeGroupsResponse__Output>(c, 'DescribeGroups', { group_ids: ['g'] })
    expect(codeOf(await join(c, { group: '' }))).toBe('INVALID_GROUP_ID')
    expect(codeOf(await join(c, { sessionMs: 99 }))).toBe('INVALID_SESSION_TIMEOUT')
    expect(codeOf(await join(c, { sessionMs: 10_001 }))).toBe('INVALID_SESSION_TIMEOUT')
    expect(codeOf(await join(c, { protocols: [['roundrobin', 'm']] }))).toBe('INCONSISTENT_GROUP_PROTOCOL')
    expect(codeOf(await join(c, { protocolType: 'connect' }))).toBe('INCONSISTENT_GROUP_PROTOCOL')
    expect(codeOf(await join(c, { group: 'other', memberId: 'made-up' }))).toBe('UNKNOWN_MEMBER_ID')
    expect(await heartbeat(c, 'unknown-group', r.member_id, 1)).toBe('UNKNOWN_MEMBER_ID')
    expect(await heartbeat(c, 'g', r.member_id, 7)).toBe('ILLEGAL_GENERATION')
    expect(codeOf(await sync(c, 'g', 'made-up', 1))).toBe('UNKNOWN_MEMBER_ID')
    const commit = await call<wire.OffsetCommitResponse__Output>(c, 'OffsetCommit', {
      group_id: 'g',
      generation_id: 1,
      member_id: 'not-a-member',
      topics: [{ topic: 't', partitions: [{ partition: 0, committed_offset: '5' }] }],
    })
    expect(codeOf(commit)).toBe('UNKNOWN_MEMBER_ID')
    expect(codeOf(commit.topics[0]!.partitions[0]!)).toBe('UNKNOWN_MEMBER_ID')
    const after = await call<wire.DescribeGroupsResponse__Output>(c, 'DescribeGroups', { group_ids: ['g'] })
    expect(after).toEqual(before)
    expect((await call<wire.ListGroupsResponse__Output>(c, 'ListGroups', {})).groups.map((g) => g.group_id)).toEqual([
      'g',
    ])
    // A message that does not decode is answered with a gRPC status; the server keeps serving.
    const raw = new grpc.Client(lastEndpoint, grpc.credentials.createInsecure())
    onTestFinished(() => {
      raw.close()
    })
    const status = await new Promise<grpc.ServiceError | null>((resolve) => {
      raw.makeUnaryRequest(
        '/sluice.v1.GroupCoordinator/JoinGroup',
        (x: Buffer) => x,
        (x: Buffer) => x,
        Buffer.from([0xff, 0xff, 0xff]),
        (err) => {
          resolve(err)
        },
      )
    })
    expect(status).not.toBeNull()
    expect(await heartbeat(c, 'g', r.member_id, 1)).toBe('NONE')
  })
})
