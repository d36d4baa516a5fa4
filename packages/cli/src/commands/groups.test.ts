import { describe, expect, it } from 'vitest'
import type { GroupDescription } from '@sluice/client'
import { runCli, type CommandHandlers } from '../program.js'
import { testIo } from '../test-io.js'
import { describeView, renderGroupDescription, renderGroupList, renderResetPlan, resetSpec } from './groups.js'
import type { GroupsResetArgs } from '../command-types.js'

const desc: GroupDescription = {
  groupId: 'billing',
  state: 'Stable',
  protocolType: 'consumer',
  protocol: 'cooperative-sticky',
  generationId: 4,
  leader: 'm-1',
  members: [
    {
      memberId: 'm-1',
      clientId: 'svc',
      clientHost: '10.0.0.1',
      assignment: [
        { topic: 'orders', partition: 0 },
        { topic: 'orders', partition: 1 },
      ],
      subscription: ['orders'],
    },
    {
      memberId: 'm-2',
      groupInstanceId: 'pod-2',
      clientId: 'svc',
      clientHost: '10.0.0.2',
      assignment: [{ topic: 'orders', partition: 2 }],
      subscription: ['orders'],
    },
  ],
}

const committed = [
  { topic: 'orders', partition: 0, offset: 10n },
  { topic: 'orders', partition: 2, offset: 7n },
  { topic: 'gone', partition: 0, offset: 3n },
]
const ends = new Map([
  ['orders\u00000', 15n],
  ['orders\u00001', 4n],
  ['orders\u00002', 7n],
])

describe('groups views', () => {
  it('joins members, committed offsets and log ends into per-partition lag', () => {
    const v = describeView(desc, committed, ends)
    expect(v.offsets).toEqual([
      { topic: 'gone', partition: 0, committed: 3n, logEnd: null, lag: null, memberId: null },
      { topic: 'orders', partition: 0, committed: 10n, logEnd: 15n, lag: 5n, memberId: 'm-1' },
      { topic: 'orders', partition: 1, committed: null, logEnd: 4n, lag: null, memberId: 'm-1' },
      { topic: 'orders', partition: 2, committed: 7n, logEnd: 7n, lag: 0n, memberId: 'm-2' },
    ])
    expect(v.totalLag).toBe(5n)
  })

  it('renders a description', () => {
    expect(renderGroupDescription(describeView(desc, committed, ends))).toBe(
      [
        'group       billing',
        'state       Stable',
        'protocol    consumer/cooperative-sticky',
        'generation  4',
        'members     2',
        '',
        'MEMBER        INSTANCE  CLIENT ID  HOST      PARTITIONS',
        'm-1 (leader)  -         svc        10.0.0.1  orders:0,orders:1',
        'm-2           pod-2     svc        10.0.0.2  orders:2',
        '',
        'TOPIC   PARTITION  COMMITTED  LOG END  LAG  MEMBER',
        'gone            0          3        -    -  -',
        'orders          0         10       15    5  m-1',
        'orders          1          -        4    -  m-1',
        'orders          2          7        7    0  m-2',
        '',
        'total lag   5',
        '',
      ].join('\n'),
    )
  })

  it('renders the list and reset plans', () => {
    expect(
      renderGroupList([
        { groupId: 'b', state: 'Empty', protocolType: 'consumer' },
        { groupId: 'a', state: 'Stable', protocolType: '' },
      ]),
    ).toBe(['GROUP  STATE   PROTOCOL TYPE', 'a      Stable  -', 'b      Empty   consumer', ''].join('\n'))
    const plan = [
      { topic: 'orders', partition: 0, current: 10n, target: 0n },
      { topic: 'orders', partition: 1, current: null, target: 0n },
    ]
    expect(renderResetPlan('g', plan, false)).toContain('dry run: nothing changed; add --execute')
    expect(renderResetPlan('g', plan, true)).toBe(
      [
        'TOPIC   PARTITION  CURRENT  NEW',
        'orders          0       10    0',
        'orders          1        -    0',
        'reset 2 partition(s) of group g',
        '',
      ].join('\n'),
    )
  })

  it('needs exactly one reset target', () => {
    const base: GroupsResetArgs = { topic: 't', execute: false }
    expect(resetSpec({ ...base, toEarliest: true })).toBe('earliest')
    expect(resetSpec({ ...base, shiftBy: -3n })).toEqual({ shiftBy: -3n })
    expect(() => resetSpec(base)).toThrow(/exactly one/)
    expect(() => resetSpec({ ...base, toLatest: true, toOffset: 3n })).toThrow(/exactly one/)
  })
})

describe('groups argument parsing', () => {
  function recorder(): { calls: unknown[][]; handlers: CommandHandlers } {
    const calls: unknown[][] = []
    const rec =
      (name: string) =>
      async (...args: unknown[]) => {
        calls.push([name, ...args.slice(1)])
        return 0
      }
    const handlers = new Proxy({}, { get: (_t, name) => rec(String(name)) }) as unknown as CommandHandlers
    return { calls, handlers }
  }

  it('parses list, describe, delete and reset-offsets (dry run by default, negative shifts)', async () => {
    const { calls, handlers } = recorder()
    expect(await runCli(['groups', 'list'], testIo(), handlers)).toBe(0)
    expect(await runCli(['groups', 'describe', 'g1', '--json'], testIo(), handlers)).toBe(0)
    expect(await runCli(['groups', 'delete', 'g1'], testIo(), handlers)).toBe(0)
    expect(
      await runCli(['groups', 'reset-offsets', 'g1', '--topic', 't', '--to-offset', '42'], testIo(), handlers),
    ).toBe(0)
    expect(
      await runCli(
        ['groups', 'reset-offsets', 'g1', '--topic', 't', '--shift-by', '-5', '--execute'],
        testIo(),
        handlers,
      ),
    ).toBe(0)
    expect(
      await runCli(['groups', 'reset-offsets', 'g1', '--topic', 't', '--to-timestamp', '1000'], testIo(), handlers),
    ).toBe(0)
    expect(calls).toEqual([
      ['groupsList'],
      ['groupsDescribe', 'g1'],
      ['groupsDelete', 'g1'],
      ['groupsResetOffsets', 'g1', { topic: 't', toOffset: 42n, execute: false }],
      ['groupsResetOffsets', 'g1', { topic: 't', shiftBy: -5n, execute: true }],
      ['groupsResetOffsets', 'g1', { topic: 't', toTimestamp: 1000n, execute: false }],
    ])
  })

  it('rejects two targets and a missing topic', async () => {
    const { calls, handlers } = recorder()
    const io = testIo()
    expect(
      await runCli(['groups', 'reset-offsets', 'g1', '--topic', 't', '--to-earliest', '--to-latest'], io, handlers),
    ).not.toBe(0)
    expect(io.err()).toMatch(/cannot be used with/)
    const io2 = testIo()
    expect(await runCli(['groups', 'reset-offsets', 'g1', '--to-earliest'], io2, handlers)).not.toBe(0)
    expect(io2.err()).toMatch(/--topic/)
    expect(calls).toEqual([])
  })
})
