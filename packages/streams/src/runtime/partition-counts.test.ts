import { describe, expect, it } from 'vitest'
import { StreamsError } from '../errors.js'
import { checkCopartitioning } from './copartitioning.js'
import { requiredPartitionCounts } from './partition-counts.js'
import type { InternalTopicPlan, SubtopologyPlan, TopologyPlan } from './task-contract.js'
import { groupIntoTasks, sourceTopicOwners } from './task-assignment.js'

function plan(subtopologies: SubtopologyPlan[], internalTopics: InternalTopicPlan[]): TopologyPlan {
  return {
    applicationId: 'app',
    subtopologies,
    internalTopics,
    globalStores: [],
    createTask: () => {
      throw new Error('not in these tests')
    },
    createGlobalStore: () => {
      throw new Error('not in these tests')
    },
  }
}

const sub = (id: number, sourceTopics: string[], extra: Partial<SubtopologyPlan> = {}): SubtopologyPlan => ({
  id,
  sourceTopics,
  sinkTopics: [],
  stores: [],
  copartitionGroups: [],
  ...extra,
})

const counts = { name: 'counts', kind: 'key-value', persistent: false, logging: true, caching: false } as const

describe('requiredPartitionCounts', () => {
  it('sizes a repartition topic like its sub-topology input and a changelog like its own sub-topology', () => {
    const p = plan(
      [sub(0, ['in', 'in2']), sub(1, ['app-x-repartition'], { stores: [counts] })],
      [
        { name: 'app-x-repartition', kind: 'repartition', partitionsLike: 0, configs: {} },
        // No partitionsLike: found through the sub-topology that owns the store.
        { name: 'app-counts-changelog', kind: 'changelog', configs: { 'cleanup.policy': 'compact' } },
      ],
    )
    const r = requiredPartitionCounts(
      p,
      new Map([
        ['in', 4],
        ['in2', 6],
      ]),
    )
    expect(r.subtopologies).toEqual(
      new Map([
        [0, 6],
        [1, 6],
      ]),
    )
    expect(r.topics.get('app-x-repartition')).toBe(6)
    expect(r.topics.get('app-counts-changelog')).toBe(6)
  })

  it('takes a repartition topic count the user gave, and the changelog after it follows that', () => {
    const p = plan(
      [sub(0, ['in']), sub(1, ['app-x-repartition'], { stores: [counts] })],
      [
        { name: 'app-x-repartition', kind: 'repartition', partitions: 2, partitionsLike: 0, configs: {} },
        { name: 'app-counts-changelog', kind: 'changelog', partitionsLike: 1, configs: {} },
      ],
    )
    const r = requiredPartitionCounts(p, new Map([['in', 5]]))
    expect(r.topics.get('app-counts-changelog')).toBe(2)
  })

  it('refuses a missing source topic and a count that depends on itself', () => {
    expect(() => requiredPartitionCounts(plan([sub(0, ['nope'])], []), new Map())).toThrow(StreamsError)
    const loop = plan(
      [sub(0, ['app-a-repartition'])],
      [{ name: 'app-a-repartition', kind: 'repartition', partitionsLike: 0, configs: {} }],
    )
    expect(() => requiredPartitionCounts(loop, new Map())).toThrow(/depends on itself/)
  })
})

describe('checkCopartitioning', () => {
  it('names every topic and its count when a group differs', () => {
    const p = plan([sub(0, ['a', 'b'], { copartitionGroups: [['a', 'b']] })], [])
    expect(() =>
      checkCopartitioning(
        p,
        new Map([
          ['a', 3],
          ['b', 3],
        ]),
      ),
    ).not.toThrow()
    expect(() =>
      checkCopartitioning(
        p,
        new Map([
          ['a', 3],
          ['b', 2],
        ]),
      ),
    ).toThrow('a (3), b (2)')
  })
})

describe('groupIntoTasks', () => {
  it('puts partition p of every source topic of a sub-topology into task <sub>_<p>', () => {
    const p = plan([sub(0, ['a', 'b']), sub(1, ['c'])], [])
    const tasks = groupIntoTasks(
      [
        { topic: 'b', partition: 1 },
        { topic: 'a', partition: 1 },
        { topic: 'c', partition: 0 },
        { topic: 'a', partition: 0 },
        { topic: 'unknown', partition: 0 },
      ],
      sourceTopicOwners(p),
    )
    expect([...tasks.keys()]).toEqual(['0_0', '0_1', '1_0'])
    expect(tasks.get('0_1')!.partitions).toEqual([
      { topic: 'b', partition: 1 },
      { topic: 'a', partition: 1 },
    ])
  })

  it('refuses a topic read by two sub-topologies', () => {
    expect(() => sourceTopicOwners(plan([sub(0, ['a']), sub(1, ['a'])], []))).toThrow(StreamsError)
  })
})
