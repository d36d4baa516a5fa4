import { describe, expect, it } from 'vitest'
import { pino } from 'pino'
import { ManualClock, errorId, errorNameFromId, type wire } from '@sluice/protocol'
import { GroupManager } from './group-manager.js'
import { resolveGroupConfig, type GroupCoordinatorOptions } from './group-config.js'

/**
 * A GroupManager on a ManualClock. Its sweep timer is not started: `advance` moves the clock and
 * runs one sweep itself, so each step of a test is exactly one tick at the new time.
 */
function setup(options: GroupCoordinatorOptions = {}): {
  mgr: GroupManager
  clock: ManualClock
  advance: (ms: number) => void
} {
  const clock = new ManualClock(1_000_000)
  let n = 0
  const mgr = new GroupManager({
    config: resolveGroupConfig({ minSessionTimeoutMs: 100, initialRebalanceDelayMs: 0, ...options }),
    logger: pino({ level: 'silent' }),
    clock,
    newMemberId: (prefix) => `${prefix}-${++n}`,
  })
  const advance = (ms: number): void => {
    clock.advance(ms)
    mgr.tick()
  }
  return { mgr, clock, advance }
}

interface JoinArgs {
  memberId?: string
  instance?: string
  client?: string
  protocols?: Array<[string, string]>
  session?: number
  rebalance?: number
  type?: string
  group?: string
}

function joinReq(a: JoinArgs): wire.JoinGroupRequest__Output {
  return {
    group_id: a.group ?? 'g',
    session_timeout_ms: a.session ?? 1000,
    rebalance_timeout_ms: a.rebalance ?? 2000,
    member_id: a.memberId ?? '',
    group_instance_id: a.instance ?? '',
    protocol_type: a.type ?? 'consumer',
    protocols: (a.protocols ?? [['range', 'sub']]).map(([name, md]) => ({ name, metadata: Buffer.from(md) })),
    client_id: a.client ?? 'c',
    client_host: '10.0.0.1',
  }
}

const code = (res: { error_code: number }): string => errorNameFromId(res.error_code)

/** Tracks whether a long-polled answer arrived yet. */
function track<T>(p: Promise<T>): { done: () => boolean; value: () => T; promise: Promise<T> } {
  let result: { v: T } | undefined
  void p.then((v) => {
    result = { v }
  })
  return { done: () => result !== undefined, value: () => result!.v, promise: p }
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve()
}

/** MEMBER_ID_REQUIRED, then the real join (long-polled). */
async function joinNew(
  mgr: GroupManager,
  a: JoinArgs = {},
): Promise<ReturnType<typeof track<wire.JoinGroupResponse__Output>>> {
  const first = await mgr.join(joinReq(a), 'peer')
  expect(code(first)).toBe('MEMBER_ID_REQUIRED')
  expect(first.member_id).not.toBe('')
  return track(mgr.join(joinReq({ ...a, memberId: first.member_id }), 'peer'))
}

function syncReq(
  memberId: string,
  generation: number,
  assignments: Record<string, string> = {},
  instance = '',
): wire.SyncGroupRequest__Output {
  return {
    group_id: 'g',
    generation_id: generation,
    member_id: memberId,
    group_instance_id: instance,
    protocol_type: 'consumer',
    protocol_name: '',
    assignments: Object.entries(assignments).map(([member_id, a]) => ({ member_id, assignment: Buffer.from(a) })),
  }
}

const hb = (mgr: GroupManager, memberId: string, generation: number, instance = ''): string =>
  code(mgr.heartbeat({ group_id: 'g', member_id: memberId, generation_id: generation, group_instance_id: instance }))

const INITIAL_DELAY = 50

/** Three members joined within the initial delay and synced: generation 1, Stable. */
async function stableGroupOfThree(
  mgr: GroupManager,
  advance: (ms: number) => void,
): Promise<{ ids: string[]; leader: string; generation: number }> {
  const joins = [
    await joinNew(mgr, { client: 'a' }),
    await joinNew(mgr, { client: 'b' }),
    await joinNew(mgr, { client: 'c' }),
  ]
  advance(INITIAL_DELAY + 1)
  const answers = await Promise.all(joins.map(async (j) => await j.promise))
  const leader = answers[0]!.leader
  const ids = answers.map((a) => a.member_id)
  const gen = answers[0]!.generation_id
  const syncs = answers.map((a) =>
    mgr.sync(
      syncReq(a.member_id, gen, a.member_id === leader ? Object.fromEntries(ids.map((id) => [id, `for-${id}`])) : {}),
    ),
  )
  for (const s of await Promise.all(syncs)) expect(code(s)).toBe('NONE')
  expect(mgr.get('g')!.state).toBe('Stable')
  return { ids, leader, generation: gen }
}

describe('group state machine (fake clock)', () => {
  it('first join gets MEMBER_ID_REQUIRED with a generated "<clientId>-<id>" member id and must rejoin with it', async () => {
    const { mgr } = setup()
    const first = await mgr.join(joinReq({ client: 'app' }), 'peer')
    expect(code(first)).toBe('MEMBER_ID_REQUIRED')
    expect(first.member_id).toBe('app-1')
    expect(mgr.get('g')!.members.size).toBe(0)
    const second = await mgr.join(joinReq({ client: 'app', memberId: 'app-1' }), 'peer')
    expect(code(second)).toBe('NONE')
    expect(second).toMatchObject({ generation_id: 1, leader: 'app-1', member_id: 'app-1', protocol_name: 'range' })
    expect(second.members.map((m) => m.member_id)).toEqual(['app-1'])
  })

  it("the initial delay lets three joiners rebalance once; only the leader gets the member list; sync hands out the leader's assignments", async () => {
    const { mgr, advance } = setup({ initialRebalanceDelayMs: 300 })
    const a = await joinNew(mgr, { client: 'a' })
    advance(200)
    const b = await joinNew(mgr, { client: 'b' })
    advance(200)
    const c = await joinNew(mgr, { client: 'c' })
    await flush()
    expect([a.done(), b.done(), c.done()]).toEqual([false, false, false])
    expect(mgr.get('g')!.state).toBe('PreparingRebalance')
    advance(299)
    await flush()
    expect(a.done()).toBe(false)
    advance(2)
    const [ra, rb, rc] = await Promise.all([a.promise, b.promise, c.promise])
    for (const r of [ra, rb, rc]) expect(r).toMatchObject({ error_code: 0, generation_id: 1, leader: 'a-1' })
    expect(ra.members.map((m) => [m.member_id, m.client_host, Buffer.from(m.metadata).toString()])).toEqual([
      ['a-1', '10.0.0.1', 'sub'],
      ['b-2', '10.0.0.1', 'sub'],
      ['c-3', '10.0.0.1', 'sub'],
    ])
    expect(rb.members).toEqual([])
    expect(mgr.get('g')!.state).toBe('CompletingRebalance')
    expect(hb(mgr, 'b-2', 1)).toBe('NONE')
    const sb = track(mgr.sync(syncReq('b-2', 1)))
    await flush()
    expect(sb.done()).toBe(false)
    const sa = await mgr.sync(syncReq('a-1', 1, { 'a-1': 'A', 'b-2': 'B' }))
    expect(Buffer.from(sa.assignment).toString()).toBe('A')
    expect(Buffer.from((await sb.promise).assignment).toString()).toBe('B')
    expect((await mgr.sync(syncReq('c-3', 1))).assignment.length).toBe(0)
    expect(mgr.get('g')!.state).toBe('Stable')
  })

  it('a member that stops heartbeating is removed after its session timeout; the others get REBALANCE_IN_PROGRESS, then a new generation', async () => {
    const { mgr, advance } = setup({ initialRebalanceDelayMs: INITIAL_DELAY })
    const { ids, generation } = await stableGroupOfThree(mgr, advance)
    const [a, b, c] = ids as [string, string, string]
    for (let t = 0; t < 3; t++) {
      advance(300)
      expect(hb(mgr, a, generation)).toBe('NONE')
      expect(hb(mgr, b, generation)).toBe('NONE')
    }
    expect(mgr.get('g')!.members.has(c)).toBe(true)
    advance(200)
    expect(mgr.get('g')!.members.has(c)).toBe(false)
    expect(hb(mgr, a, generation)).toBe('REBALANCE_IN_PROGRESS')
    expect(hb(mgr, c, generation)).toBe('UNKNOWN_MEMBER_ID')
    const ja = track(mgr.join(joinReq({ memberId: a }), 'peer'))
    const jb = track(mgr.join(joinReq({ memberId: b }), 'peer'))
    const [ra, rb] = await Promise.all([ja.promise, jb.promise])
    expect(ra.generation_id).toBe(generation + 1)
    expect(rb.generation_id).toBe(generation + 1)
    expect((ra.leader === a ? ra : rb).members.map((m) => m.member_id).sort()).toEqual([a, b].sort())
    expect(hb(mgr, a, generation)).toBe('ILLEGAL_GENERATION')
  })

  it('the sweep timer removes a member exactly when its session timeout has passed since its last heartbeat, not one ms before', async () => {
    const { mgr, clock } = setup({ sweepIntervalMs: 1 })
    mgr.start()
    const first = await mgr.join(joinReq({ client: 'solo', session: 1000 }), 'peer')
    const joined = await mgr.join(joinReq({ client: 'solo', session: 1000, memberId: first.member_id }), 'peer')
    expect(code(await mgr.sync(syncReq(joined.member_id, joined.generation_id, { [joined.member_id]: 'all' })))).toBe(
      'NONE',
    )
    clock.advance(400)
    expect(hb(mgr, joined.member_id, joined.generation_id)).toBe('NONE')
    clock.advance(999) // the sweep runs every ms on the way
    expect(mgr.get('g')!.members.has(joined.member_id)).toBe(true)
    clock.advance(1)
    expect(mgr.get('g')!.members.has(joined.member_id)).toBe(false)
    expect(mgr.get('g')!.state).toBe('Empty')
    mgr.stop()
    expect(clock.pendingTimers).toBe(0)
  })

  it('a member that does not rejoin within the rebalance timeout is dropped', async () => {
    const { mgr, advance } = setup({ initialRebalanceDelayMs: INITIAL_DELAY })
    const { ids, leader, generation } = await stableGroupOfThree(mgr, advance)
    const others = ids.filter((id) => id !== leader)
    // The leader rejoining starts a rebalance; the others keep heartbeating but never rejoin.
    const j = track(mgr.join(joinReq({ memberId: leader, session: 5000, rebalance: 1500 }), 'peer'))
    for (let t = 0; t < 3; t++) {
      advance(400)
      for (const id of others) expect(hb(mgr, id, generation)).toBe('REBALANCE_IN_PROGRESS')
    }
    await flush()
    expect(j.done()).toBe(false)
    advance(900)
    const r = await j.promise
    expect(r).toMatchObject({ error_code: 0, generation_id: generation + 1, leader })
    expect(r.members.map((m) => m.member_id)).toEqual([leader])
    for (const id of others) expect(hb(mgr, id, generation)).toBe('UNKNOWN_MEMBER_ID')
  })

  it('members that never send SyncGroup are removed after the rebalance timeout', async () => {
    const { mgr, advance } = setup()
    const a = await joinNew(mgr, { client: 'a', rebalance: 500 })
    const ra = await a.promise
    expect(mgr.get('g')!.state).toBe('CompletingRebalance')
    expect(hb(mgr, ra.member_id, 1)).toBe('NONE')
    advance(600)
    expect(mgr.get('g')!.members.size).toBe(0)
    expect(mgr.get('g')!.state).toBe('Empty')
  })

  it('a static member restarting within its session gets its assignment back without a rebalance; the old incarnation is fenced', async () => {
    const { mgr } = setup()
    const ja = track(mgr.join(joinReq({ instance: 'i-a', client: 'a' }), 'peer'))
    const ra = await ja.promise
    expect(ra).toMatchObject({ error_code: 0, generation_id: 1, member_id: 'i-a-1' })
    const jb = track(mgr.join(joinReq({ instance: 'i-b', client: 'b' }), 'peer'))
    const ja2 = track(mgr.join(joinReq({ memberId: 'i-a-1', instance: 'i-a' }), 'peer'))
    const [rb, ra2] = await Promise.all([jb.promise, ja2.promise])
    expect(rb.generation_id).toBe(2)
    await Promise.all([
      mgr.sync(syncReq('i-a-1', 2, { 'i-a-1': 'A', 'i-b-2': 'B' }, 'i-a')),
      mgr.sync(syncReq('i-b-2', 2, {}, 'i-b')),
    ])
    expect(ra2.leader).toBe('i-a-1')
    // i-b restarts: same instance id, no member id, same subscription.
    const restarted = await mgr.join(joinReq({ instance: 'i-b', client: 'b' }), 'peer')
    expect(restarted).toMatchObject({
      error_code: 0,
      generation_id: 2,
      leader: 'i-a-1',
      member_id: 'i-b-3',
      skip_assignment: false,
    })
    expect(mgr.get('g')!.state).toBe('Stable')
    expect(Buffer.from((await mgr.sync(syncReq('i-b-3', 2, {}, 'i-b'))).assignment).toString()).toBe('B')
    expect(hb(mgr, 'i-a-1', 2, 'i-a')).toBe('NONE')
    expect(hb(mgr, 'i-b-2', 2, 'i-b')).toBe('FENCED_INSTANCE_ID')
    expect(mgr.checkCommit('g', 'i-b-2', 'i-b', 2)).toBe('FENCED_INSTANCE_ID')
    // The static leader restarting learns the members but must not recompute (skip_assignment).
    const leader = await mgr.join(joinReq({ instance: 'i-a', client: 'a' }), 'peer')
    expect(leader).toMatchObject({ error_code: 0, generation_id: 2, leader: 'i-a-4', skip_assignment: true })
    expect(leader.members.map((m) => m.group_instance_id).sort()).toEqual(['i-a', 'i-b'])
    // A changed subscription does rebalance.
    const changed = track(mgr.join(joinReq({ instance: 'i-b', protocols: [['range', 'other']] }), 'peer'))
    await flush()
    expect(mgr.get('g')!.state).toBe('PreparingRebalance')
    expect(changed.done()).toBe(false)
  })

  it('selects the protocol every member supports by votes; a member with none in common or another type gets INCONSISTENT_GROUP_PROTOCOL and changes nothing', async () => {
    const { mgr, advance } = setup({ initialRebalanceDelayMs: INITIAL_DELAY })
    const a = await joinNew(mgr, {
      client: 'a',
      protocols: [
        ['cooperative-sticky', 'x'],
        ['range', 'x'],
      ],
    })
    const b = await joinNew(mgr, {
      client: 'b',
      protocols: [
        ['range', 'y'],
        ['cooperative-sticky', 'y'],
      ],
    })
    const c = await joinNew(mgr, {
      client: 'c',
      protocols: [
        ['range', 'z'],
        ['cooperative-sticky', 'z'],
      ],
    })
    advance(INITIAL_DELAY + 1)
    const [ra] = await Promise.all([a.promise, b.promise, c.promise])
    expect(ra.protocol_name).toBe('range')
    expect(Buffer.from(ra.members[0]!.metadata).toString()).toBe('x')
    const before = JSON.stringify(mgr.get('g')!.describe())
    const bad = await mgr.join(joinReq({ client: 'd', protocols: [['roundrobin', '']] }), 'peer')
    expect(code(bad)).toBe('INCONSISTENT_GROUP_PROTOCOL')
    const badType = await mgr.join(joinReq({ client: 'd', type: 'connect' }), 'peer')
    expect(code(badType)).toBe('INCONSISTENT_GROUP_PROTOCOL')
    expect(JSON.stringify(mgr.get('g')!.describe())).toBe(before)
  })

  it('rejects bad joins with typed errors and creates no group', async () => {
    const { mgr } = setup({ maxSessionTimeoutMs: 10_000 })
    expect(code(await mgr.join(joinReq({ group: '' }), 'p'))).toBe('INVALID_GROUP_ID')
    expect(code(await mgr.join(joinReq({ session: 99 }), 'p'))).toBe('INVALID_SESSION_TIMEOUT')
    expect(code(await mgr.join(joinReq({ session: 10_001 }), 'p'))).toBe('INVALID_SESSION_TIMEOUT')
    expect(code(await mgr.join(joinReq({ rebalance: -1 }), 'p'))).toBe('INVALID_REQUEST')
    expect(code(await mgr.join(joinReq({ type: '' }), 'p'))).toBe('INCONSISTENT_GROUP_PROTOCOL')
    expect(code(await mgr.join(joinReq({ protocols: [] }), 'p'))).toBe('INCONSISTENT_GROUP_PROTOCOL')
    expect(
      code(
        await mgr.join(
          joinReq({
            protocols: [
              ['range', ''],
              ['range', ''],
            ],
          }),
          'p',
        ),
      ),
    ).toBe('INVALID_REQUEST')
    expect(code(await mgr.join(joinReq({ memberId: 'ghost' }), 'p'))).toBe('UNKNOWN_MEMBER_ID')
    expect(mgr.groups.size).toBe(0)
    expect(code(mgr.heartbeat({ group_id: 'nope', member_id: 'x', generation_id: 1, group_instance_id: '' }))).toBe(
      'UNKNOWN_MEMBER_ID',
    )
    expect(code(await mgr.sync({ ...syncReq('x', 1), group_id: 'nope' }))).toBe('UNKNOWN_MEMBER_ID')
    expect(
      code(mgr.leave({ group_id: 'nope', members: [{ member_id: 'x', group_instance_id: '', reason: '' }] })),
    ).toBe('GROUP_ID_NOT_FOUND')
    expect(mgr.groups.size).toBe(0)
  })

  it('commits: current generation only, none while completing a rebalance, admin commits only for an empty group', async () => {
    const { mgr, advance } = setup({ initialRebalanceDelayMs: INITIAL_DELAY })
    expect(mgr.checkCommit('unknown', '', '', -1)).toBeUndefined()
    expect(mgr.checkCommit('unknown', 'm', '', 3)).toBe('UNKNOWN_MEMBER_ID')
    const a = await joinNew(mgr, { client: 'a' })
    const b = await joinNew(mgr, { client: 'b' })
    advance(INITIAL_DELAY + 1)
    const [ra, rb] = await Promise.all([a.promise, b.promise])
    expect(mgr.checkCommit('g', ra.member_id, '', 1)).toBe('REBALANCE_IN_PROGRESS')
    const syncs = [mgr.sync(syncReq(ra.member_id, 1, {})), mgr.sync(syncReq(rb.member_id, 1, {}))]
    await Promise.all(syncs)
    expect(mgr.checkCommit('g', rb.member_id, '', 1)).toBeUndefined()
    expect(mgr.checkCommit('g', rb.member_id, '', 0)).toBe('ILLEGAL_GENERATION')
    expect(mgr.checkCommit('g', 'other', '', 1)).toBe('UNKNOWN_MEMBER_ID')
    expect(mgr.checkCommit('g', '', '', -1)).toBe('NON_EMPTY_GROUP')
    // Allowed while preparing a rebalance, so a member can commit before it revokes.
    const rejoin = mgr.join(joinReq({ memberId: ra.member_id }), 'peer')
    expect(mgr.get('g')!.state).toBe('PreparingRebalance')
    expect(mgr.checkCommit('g', rb.member_id, '', 1)).toBeUndefined()
    const left = mgr.leave({
      group_id: 'g',
      members: [{ member_id: rb.member_id, group_instance_id: '', reason: 'bye' }],
    })
    expect(left.members.map((m) => m.error_code)).toEqual([errorId('NONE')])
    expect((await rejoin).generation_id).toBe(2)
    mgr.leave({ group_id: 'g', members: [{ member_id: ra.member_id, group_instance_id: '', reason: 'bye' }] })
    expect(mgr.get('g')!.state).toBe('Empty')
    expect(mgr.checkCommit('g', '', '', -1)).toBeUndefined()
  })

  it('LeaveGroup of a dynamic member triggers a rebalance; unknown members get UNKNOWN_MEMBER_ID', async () => {
    const { mgr, advance } = setup({ initialRebalanceDelayMs: INITIAL_DELAY })
    const { ids, generation } = await stableGroupOfThree(mgr, advance)
    const res = mgr.leave({
      group_id: 'g',
      members: [
        { member_id: ids[2]!, group_instance_id: '', reason: 'close' },
        { member_id: 'ghost', group_instance_id: '', reason: '' },
      ],
    })
    expect(res.members.map((m) => errorNameFromId(m.error_code))).toEqual(['NONE', 'UNKNOWN_MEMBER_ID'])
    expect(mgr.get('g')!.state).toBe('PreparingRebalance')
    expect(hb(mgr, ids[0]!, generation)).toBe('REBALANCE_IN_PROGRESS')
  })
})
