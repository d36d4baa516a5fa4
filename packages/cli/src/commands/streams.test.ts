import { describe, expect, it } from 'vitest'
import type { GroupDescription } from '@sluice/client'
import { encodeAssignmentInfo, encodeSubscriptionInfo } from '@sluice/streams/user-data'
import { UsageError } from '../output.js'
import { renderStreamsDescription, streamsDescribeView } from './streams.js'

const A = 'aaaaaaaa-1111-4111-8111-111111111111'
const B = 'bbbbbbbb-2222-4222-8222-222222222222'
const sources = new Map([
  [0, ['words']],
  [1, ['wc-counts-repartition']],
])
const t = (subtopology: number, partition: number) => ({ subtopology, partition })

function member(id: string, instanceId: string, active: ReturnType<typeof t>[], standby: ReturnType<typeof t>[]) {
  return {
    memberId: id,
    clientId: 'sluice-streams',
    clientHost: '10.0.0.1',
    assignment: active.map((x) => ({
      topic: x.subtopology === 0 ? 'words' : 'wc-counts-repartition',
      partition: x.partition,
    })),
    subscription: ['words', 'wc-counts-repartition'],
    subscriptionUserData: encodeSubscriptionInfo({
      instanceId,
      endpoint: instanceId === A ? 'a.local:7070' : '',
      activeTasks: active,
      standbyTasks: [],
    }),
    assignmentUserData: encodeAssignmentInfo({
      activeTasks: active,
      standbyTasks: standby,
      partitionsByEndpoint: new Map(),
      subtopologySources: sources,
    }),
  }
}

const desc: GroupDescription = {
  groupId: 'wc',
  state: 'Stable',
  protocolType: 'consumer',
  protocol: 'sluice-streams',
  generationId: 3,
  leader: 'm-1',
  members: [
    // Both run partition 0 of a sub-topology: only the sources tell words:0 from the repartition's 0.
    member('m-1', A, [t(0, 0), t(1, 1)], [t(0, 1)]),
    member('m-2', B, [t(0, 1), t(1, 0)], [t(0, 0)]),
  ],
}

const committed = [
  { topic: 'words', partition: 0, offset: 10n },
  { topic: 'words', partition: 1, offset: 4n },
  { topic: 'wc-counts-repartition', partition: 0, offset: 7n },
  { topic: 'retired', partition: 0, offset: 2n },
]
const logEnds = new Map([
  ['words\u00000', 15n],
  ['words\u00001', 4n],
  ['wc-counts-repartition\u00000', 9n],
  ['wc-counts-repartition\u00001', 3n],
])

describe('streams describe view', () => {
  it("names each task's active and standby instance and its partitions' lag", () => {
    const v = streamsDescribeView({ description: desc, committed, logEnds })
    expect(v.tasks.map((x) => [x.taskId, x.active, x.standbys, x.lag])).toEqual([
      ['0_0', A, [B], 5n],
      ['0_1', B, [A], 0n],
      ['1_0', B, [], 2n],
      ['1_1', A, [], 0n],
    ])
    expect(v.tasks[2]!.partitions).toEqual([
      { topic: 'wc-counts-repartition', partition: 0, committed: 7n, logEnd: 9n, lag: 2n },
    ])
    expect(v.tasks[3]!.partitions).toEqual([
      { topic: 'wc-counts-repartition', partition: 1, committed: null, logEnd: 3n, lag: null },
    ])
    expect(v.otherPartitions).toEqual([{ topic: 'retired', partition: 0, committed: 2n, logEnd: null, lag: null }])
    expect(v.instances.map((i) => [i.instanceId, i.endpoint, i.activeTasks, i.standbyTasks])).toEqual([
      [A, 'a.local:7070', ['0_0', '1_1'], ['0_1']],
      [B, null, ['0_1', '1_0'], ['0_0']],
    ])
    expect(v.totalLag).toBe(7n)
  })

  it('renders tables a person can read, instance ids shortened', () => {
    const text = renderStreamsDescription(streamsDescribeView({ description: desc, committed, logEnds }))
    expect(text).toContain('application  wc\nstate        Stable\ngeneration   3\ninstances    2\ntasks        4\n')
    expect(text).toMatch(/INSTANCE\s+MEMBER\s+HOST\s+ENDPOINT\s+ACTIVE\s+STANDBY/)
    expect(text).toMatch(/aaaaaaaa\s+m-1\s+10\.0\.0\.1\s+a\.local:7070\s+0_0,1_1\s+0_1/)
    expect(text).toMatch(/0_0\s+aaaaaaaa\s+bbbbbbbb\s+words\s+0\s+10\s+15\s+5/)
    expect(text).toMatch(/1_1\s+aaaaaaaa\s+-\s+wc-counts-repartition\s+1\s+-\s+3\s+-/)
    expect(text).toMatch(/-\s+-\s+-\s+retired\s+0\s+2\s+-\s+-/)
    expect(text).not.toContain(A)
    expect(text.endsWith('total lag    7\n')).toBe(true)
  })

  it('shows committed partitions without tasks while no instance runs', () => {
    const empty = { ...desc, state: 'Empty', protocol: '', members: [] }
    const v = streamsDescribeView({ description: empty, committed, logEnds })
    expect(v.tasks).toEqual([])
    expect(v.otherPartitions).toHaveLength(4)
    expect(renderStreamsDescription(v)).toContain('no instance is running')
  })

  it('refuses a group of another assignor', () => {
    expect(() =>
      streamsDescribeView({ description: { ...desc, protocol: 'range' }, committed: [], logEnds: new Map() }),
    ).toThrow(UsageError)
  })
})
