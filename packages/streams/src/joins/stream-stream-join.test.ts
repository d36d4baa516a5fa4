import { describe, expect, it } from 'vitest'
import { isStreamsError } from '../errors.js'
import type { ChangelogRecord } from '../state/store-types.js'
import { JoinHarness, stringSerde } from './__fixtures__/join-harness.js'
import type { JoinKind } from './join-types.js'
import { JoinWindows } from './join-windows.js'
import { streamStreamJoin } from './stream-stream-join.js'
import { StreamJoined, streamJoinStores } from './stream-joined.js'

/**
 * A join of two string streams, results 'left+right' (a missing side written 'null'), its
 * stores logged (the harness keeps their changelogs) and started from `restoreFrom` when given.
 */
function setup(
  kind: JoinKind,
  windows = JoinWindows.ofTimeDifferenceAndGrace(10, 5),
  restoreFrom?: ReadonlyMap<string, readonly ChangelogRecord[]>,
) {
  const joined = StreamJoined.with(stringSerde, stringSerde, stringSerde).withStoreName('j').withInMemoryStores()
  const stores = streamJoinStores(kind, windows, joined)
  const join = streamStreamJoin<string, string, string, string>({
    kind,
    windows,
    stores: stores.names,
    joiner: (left, right) => `${left}+${right}`,
  })
  const harness = new JoinHarness<string, string>(
    [stores.left, stores.right, ...(stores.pending === undefined ? [] : [stores.pending])],
    restoreFrom,
  )
  return harness.add('L', join.left).add('R', join.right)
}

describe('stream-stream inner join', () => {
  it('joins each record with every record of the other side within the time difference, at the later timestamp', () => {
    const h = setup('inner')
    h.send('L', 'k', 'A', 0)
    expect(h.take()).toEqual([])
    h.send('R', 'k', 'a', 5)
    expect(h.take()).toEqual([{ key: 'k', value: 'A+a', timestamp: 5 }])
    h.send('L', 'k', 'B', 12).send('R', 'x', 'z', 12)
    expect(h.take()).toEqual([{ key: 'k', value: 'B+a', timestamp: 12 }])
    h.send('R', 'k', 'b', 10)
    expect(h.take()).toEqual([
      { key: 'k', value: 'A+b', timestamp: 10 },
      { key: 'k', value: 'B+b', timestamp: 12 },
    ])
    h.close()
  })

  it('joins at exactly the time difference and not one ms beyond', () => {
    const h = setup('inner')
    h.send('L', 'k', 'A', 100).send('R', 'k', 'a', 110).send('R', 'k', 'b', 111)
    expect(h.take()).toEqual([{ key: 'k', value: 'A+a', timestamp: 110 }])
    h.close()
    const g = setup('inner')
    g.send('R', 'j', 'c', 100).send('L', 'j', 'C', 90).send('L', 'j', 'D', 89)
    expect(g.take()).toEqual([{ key: 'j', value: 'C+c', timestamp: 100 }])
    g.close()
  })

  it('keeps every record that shares a key and a timestamp', () => {
    const h = setup('inner')
    h.send('L', 'k', 'A1', 7).send('L', 'k', 'A2', 7).send('R', 'k', 'a', 7)
    expect(h.take().map((r) => r.value)).toEqual(['A1+a', 'A2+a'])
    h.close()
  })

  it('processes an out-of-order record inside the grace period and counts it', () => {
    const h = setup('inner')
    h.send('L', 'k', 'A', 100).send('R', 'k', 'a', 86)
    // 86 + 10 + 5 >= 100: its window is still open, but A (100) is 14 ms away.
    expect(h.take()).toEqual([])
    h.send('R', 'k', 'b', 95)
    expect(h.take()).toEqual([{ key: 'k', value: 'A+b', timestamp: 100 }])
    expect(h.metrics.outOfOrder).toBe(2)
    expect(h.metrics.droppedLate).toBe(0)
    h.close()
  })

  it('drops and counts a record later than its window plus the grace period', () => {
    const h = setup('inner')
    h.send('L', 'k', 'A', 84).send('R', 'x', 'x', 100)
    // 84 + 10 + 5 < 100: the right record at 84 is late even though A (84) would match it.
    h.send('R', 'k', 'late', 84)
    expect(h.take()).toEqual([])
    expect(h.metrics.droppedLate).toBe(1)
    h.close()
  })

  it('drops and counts records without a key or a value', () => {
    const h = setup('inner')
    h.send('L', null, 'A', 0).send('R', null, 'a', 0).send('L', 'k', null, 0).send('R', 'k', 'a', 0)
    expect(h.take()).toEqual([])
    expect(h.metrics.droppedInvalid).toBe(3)
    h.close()
  })

  it('follows asymmetric windows from both sides (before 0: the right record must not be earlier)', () => {
    const h = setup('inner', JoinWindows.ofTimeDifferenceAndGrace(10, 100).before(0))
    h.send('L', 'k', 'A', 50).send('R', 'k', 'early', 49).send('R', 'k', 'late', 60).send('R', 'k', 'far', 61)
    expect(h.take().map((r) => r.value)).toEqual(['A+late'])
    h.send('L', 'k', 'B', 40)
    // Seen from the right record at 49 the mirrored window is [39, 49]: B (40) joins it; 'late' (60) is beyond 40 + 10.
    expect(h.take().map((r) => r.value)).toEqual(['B+early'])
    h.close()
  })
})

describe('stream-stream left join', () => {
  it('emits an unmatched left record once, only after its window and grace have passed', () => {
    const h = setup('left')
    h.send('L', 'k', 'A', 0)
    h.send('L', 'other', 'X', 10).send('L', 'other', 'Y', 15)
    // Stream time 15 = 0 + 10 + 5: the window has not closed yet.
    expect(h.take()).toEqual([])
    h.send('L', 'other', 'Z', 16)
    expect(h.take()).toEqual([{ key: 'k', value: 'A+null', timestamp: 0 }])
    h.send('L', 'other', 'W', 100)
    const later = h.take()
    expect(later.filter((r) => r.key === 'k')).toEqual([])
    h.close()
  })

  it('never emits the unmatched result of a record that matched inside its window', () => {
    const h = setup('left')
    h.send('L', 'k', 'A', 0).send('R', 'k', 'a', 9)
    expect(h.take()).toEqual([{ key: 'k', value: 'A+a', timestamp: 9 }])
    h.send('R', 'x', 'x', 1000)
    expect(h.take()).toEqual([])
    h.close()
  })

  it('joins a record that arrived out of order and waits no more for it', () => {
    const h = setup('left')
    h.send('R', 'k', 'a', 20).send('L', 'k', 'A', 12)
    expect(h.take()).toEqual([{ key: 'k', value: 'A+a', timestamp: 20 }])
    h.send('L', 'x', 'X', 500)
    expect(h.take().filter((r) => r.key === 'k')).toEqual([])
    h.close()
  })

  it('does not join a record whose unmatched result was already emitted (no spurious result)', () => {
    const h = setup('left')
    h.send('L', 'k', 'A', 0).send('L', 'z', 'Z', 16)
    expect(h.take()).toEqual([{ key: 'k', value: 'A+null', timestamp: 0 }])
    // 10 + 10 + 5 >= 16: this right record is not late, and 10 is within 10 ms of A, but A's window closed.
    h.send('R', 'k', 'a', 10)
    expect(h.take()).toEqual([])
    expect(h.metrics.droppedLate).toBe(0)
    h.close()
  })

  it('never emits unmatched right records, and a right record advancing time closes left windows', () => {
    const h = setup('left')
    h.send('R', 'r', 'lonely', 0).send('L', 'k', 'A', 1).send('R', 'x', 'x', 17)
    expect(h.take()).toEqual([{ key: 'k', value: 'A+null', timestamp: 1 }])
    h.send('R', 'x', 'y', 1000)
    expect(h.take()).toEqual([])
    h.close()
  })

  it('emits a left record without a key at once and drops a right one', () => {
    const h = setup('left')
    h.send('L', null, 'A', 5).send('R', null, 'a', 5)
    expect(h.take()).toEqual([{ key: null, value: 'A+null', timestamp: 5 }])
    expect(h.metrics.droppedInvalid).toBe(1)
    h.close()
  })

  it('emits every waiting record of one key and timestamp, and a late left record never', () => {
    const h = setup('left')
    h.send('L', 'k', 'A1', 3).send('L', 'k', 'A2', 3).send('L', 'x', 'X', 30)
    expect(h.take().map((r) => r.value)).toEqual(['A1+null', 'A2+null'])
    h.send('L', 'k', 'late', 5)
    h.send('L', 'x', 'Y', 1000)
    expect(h.take().filter((r) => r.key === 'k')).toEqual([])
    expect(h.metrics.droppedLate).toBe(1)
    h.close()
  })
})

describe('stream-stream join after a crash', () => {
  it('restores the waiting and the stored records from the changelogs, and emits each result once', () => {
    const before = setup('left')
    before.send('L', 'k', 'A', 0).send('L', 'j', 'B', 2).send('R', 'j', 'b', 4)
    expect(before.take()).toEqual([{ key: 'j', value: 'B+b', timestamp: 4 }])
    const changelogs = new Map(before.changelogs)
    // A crash: the task's stores and processors are gone; a new task restores from the changelogs.
    before.close()
    const after = setup('left', undefined, changelogs)
    after.send('R', 'j', 'b2', 10)
    // The restored left record B (2) is still joinable; A (0) still waits for its window to close.
    expect(after.take()).toEqual([{ key: 'j', value: 'B+b2', timestamp: 10 }])
    after.send('R', 'x', 'x', 16)
    expect(after.take()).toEqual([{ key: 'k', value: 'A+null', timestamp: 0 }])
    after.send('R', 'x', 'y', 100)
    expect(after.take()).toEqual([])
    after.close()
  })
})

describe('stream-stream outer join', () => {
  it('emits unmatched records of both sides once, oldest first, after their windows close', () => {
    const h = setup('outer')
    h.send('L', 'k', 'A', 0).send('R', 'j', 'b', 3).send('R', 'k', 'late-match', 30)
    // Stream time 30 closed A (0 + 15) and b (3 + 15) before 'late-match' looked for A.
    expect(h.take()).toEqual([
      { key: 'k', value: 'A+null', timestamp: 0 },
      { key: 'j', value: 'null+b', timestamp: 3 },
    ])
    h.send('L', 'z', 'Z', 46)
    expect(h.take()).toEqual([{ key: 'k', value: 'null+late-match', timestamp: 30 }])
    h.send('L', 'z', 'Z2', 1000)
    expect(h.take()).toEqual([{ key: 'z', value: 'Z+null', timestamp: 46 }])
    h.close()
  })

  it('emits matches and nothing unmatched for records that found each other', () => {
    const h = setup('outer')
    h.send('R', 'k', 'a', 10).send('L', 'k', 'A', 15).send('L', 'k', 'B', 25)
    expect(h.take().map((r) => r.value)).toEqual(['A+a'])
    h.send('L', 'x', 'X', 100)
    // B (25) had no match within 10 ms: its unmatched result; a and A matched each other.
    expect(h.take()).toEqual([{ key: 'k', value: 'B+null', timestamp: 25 }])
    h.close()
  })

  it('closes each side by its own after bound with asymmetric windows', () => {
    // A left record joins right records up to 2 ms before it and 10 ms after it; seen from the
    // right, the window is mirrored, so a right record closes 2 ms after its time (grace 0).
    const h = setup('outer', JoinWindows.ofTimeDifferenceWithNoGrace(10).before(2))
    h.send('L', 'k', 'A', 0).send('R', 'j', 'b', 0).send('L', 'x', 'X', 3)
    expect(h.take()).toEqual([{ key: 'j', value: 'null+b', timestamp: 0 }])
    h.send('L', 'y', 'Y', 11)
    expect(h.take()).toEqual([{ key: 'k', value: 'A+null', timestamp: 0 }])
    h.send('L', 'y', 'Y2', 14)
    expect(h.take()).toEqual([{ key: 'x', value: 'X+null', timestamp: 3 }])
    h.close()
  })

  it('emits records without a key at once on both sides', () => {
    const h = setup('outer')
    h.send('L', null, 'A', 1).send('R', null, 'a', 2)
    expect(h.take()).toEqual([
      { key: null, value: 'A+null', timestamp: 1 },
      { key: null, value: 'null+a', timestamp: 2 },
    ])
    h.close()
  })
})

describe('stream-stream join options', () => {
  it('rejects bad windows with a typed error', () => {
    expect(() => JoinWindows.ofTimeDifferenceAndGrace(-1, 0)).toThrow(/timeDifferenceMs/)
    expect(() => JoinWindows.ofTimeDifferenceAndGrace(10, 1.5)).toThrow(/graceMs/)
    expect(() => JoinWindows.ofTimeDifferenceWithNoGrace(10).before(-11)).toThrow(/inverse window/)
    try {
      JoinWindows.ofTimeDifferenceWithNoGrace(-5)
    } catch (e) {
      expect(isStreamsError(e, 'CONFIG')).toBe(true)
    }
  })

  it('names the stores after the user-given name with fixed suffixes, and requires the name', () => {
    const windows = JoinWindows.ofTimeDifferenceWithNoGrace(1000)
    const joined = StreamJoined.with(stringSerde, stringSerde, stringSerde)
    const left = streamJoinStores('left', windows, joined.withStoreName('clicks-views'))
    expect(left.names).toEqual({
      left: 'clicks-views-this-join-store',
      right: 'clicks-views-other-join-store',
      pending: 'clicks-views-outer-shared-join-store',
    })
    expect(left.left.kind).toBe('window')
    expect(left.left.retentionMs).toBe(2001)
    expect(left.pending?.kind).toBe('key-value')
    expect(streamJoinStores('inner', windows, joined.withStoreName('n')).pending).toBeUndefined()
    expect(() => streamJoinStores('inner', windows, joined)).toThrow(/withStoreName/)
  })
})
