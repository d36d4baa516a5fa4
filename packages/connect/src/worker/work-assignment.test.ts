import { describe, expect, it } from 'vitest'
import { assignWork } from './work-assignment.js'

const work = ['connector:a', 'task:a:0', 'task:a:1', 'connector:b', 'task:b:0', 'task:b:1']

describe('assignWork', () => {
  it('spreads new work evenly, each item once', () => {
    const out = assignWork(work, [
      { memberId: 'm2', running: [] },
      { memberId: 'm1', running: [] },
    ])
    const all = [...out.values()].flat().sort()
    expect(all).toEqual([...work].sort())
    expect(out.get('m1')!.length).toBe(3)
    expect(out.get('m2')!.length).toBe(3)
  })

  it('keeps work where it runs, and places the work of a worker that is gone at once', () => {
    const out = assignWork(work, [
      { memberId: 'm1', running: ['connector:a', 'task:a:0'] },
      { memberId: 'm2', running: ['task:b:1'] },
    ])
    expect(out.get('m1')).toEqual(expect.arrayContaining(['connector:a', 'task:a:0']))
    expect(out.get('m2')).toEqual(expect.arrayContaining(['task:b:1']))
    expect([...out.values()].flat().sort()).toEqual([...work].sort())
  })

  it('withholds for one generation an item that must leave a live worker, so it never runs twice', () => {
    const first = assignWork(work, [
      { memberId: 'm1', running: [...work] },
      { memberId: 'm2', running: [] },
    ])
    expect(first.get('m1')!.length).toBe(3)
    // The three m1 gives up are not given to m2 yet: m1 still runs them.
    expect(first.get('m2')).toEqual([])
    const second = assignWork(work, [
      { memberId: 'm1', running: first.get('m1')! },
      { memberId: 'm2', running: [] },
    ])
    expect(second.get('m1')).toEqual(first.get('m1'))
    expect(second.get('m2')!.length).toBe(3)
    expect([...second.values()].flat().sort()).toEqual([...work].sort())
  })

  it('drops work that no longer exists and gives an item claimed twice to one worker', () => {
    const out = assignWork(
      ['task:a:0'],
      [
        { memberId: 'm1', running: ['task:a:0', 'task:gone:0'] },
        { memberId: 'm2', running: ['task:a:0'] },
      ],
    )
    expect(out.get('m1')).toEqual(['task:a:0'])
    expect(out.get('m2')).toEqual([])
  })
})
