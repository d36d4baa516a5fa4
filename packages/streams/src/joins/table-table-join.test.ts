import { describe, expect, it } from 'vitest'
import type { KeyValueStore } from '../state/store-types.js'
import { Stores } from '../state/stores.js'
import { JoinHarness, stringSerde } from './__fixtures__/join-harness.js'
import type { JoinKind } from './join-types.js'
import { tableTableJoin } from './table-table-join.js'
import { type TimestampedValue, timestampedValueSerde } from './timestamped-value.js'

function setup(kind: JoinKind) {
  const rows = timestampedValueSerde(stringSerde)
  const left = Stores.inMemoryKeyValueStore('left-table', stringSerde, rows, { logging: false })
  const right = Stores.inMemoryKeyValueStore('right-table', stringSerde, rows, { logging: false })
  const join = tableTableJoin<string, string, string, string>({
    kind,
    leftStore: 'left-table',
    rightStore: 'right-table',
    joiner: (l, r) => `${l}+${r}`,
  })
  return new JoinHarness<string, string>([left, right]).add('L', join.left).add('R', join.right)
}

describe('table-table inner join', () => {
  it('emits the join when both rows exist, a new result on each update, a tombstone when it disappears', () => {
    const h = setup('inner')
    h.send('L', 'k', 'A', 1)
    expect(h.take()).toEqual([])
    h.send('R', 'k', 'a', 5)
    expect(h.take()).toEqual([{ key: 'k', value: 'A+a', timestamp: 5 }])
    h.send('L', 'k', 'B', 3)
    // The later of the two rows' timestamps: the right row (5) is later than the update (3).
    expect(h.take()).toEqual([{ key: 'k', value: 'B+a', timestamp: 5 }])
    h.send('R', 'k', null, 9)
    expect(h.take()).toEqual([{ key: 'k', value: null, timestamp: 9 }])
    h.send('L', 'k', 'C', 10)
    expect(h.take()).toEqual([])
    h.close()
  })

  it('sends no tombstone for a key that had no result', () => {
    const h = setup('inner')
    h.send('L', 'k', null, 1)
      .send('R', 'j', 'a', 2)
      .send('R', 'j', null, 3)
      .send('L', 'k', 'A', 4)
      .send('L', 'k', null, 5)
    expect(h.take()).toEqual([])
    h.close()
  })

  it('materializes both tables with their rows and timestamps, and drops records without a key', () => {
    const h = setup('inner')
    h.send('L', 'k', 'A', 1).send('R', 'k', 'a', 2).send('L', null, 'X', 3)
    expect(h.store<KeyValueStore<string, TimestampedValue<string>>>('left-table').get('k')).toEqual({
      value: 'A',
      timestamp: 1,
    })
    expect(h.store<KeyValueStore<string, TimestampedValue<string>>>('right-table').get('k')?.value).toBe('a')
    expect(h.metrics.droppedInvalid).toBe(1)
    h.close()
  })
})

describe('table-table left join', () => {
  it('emits for every left row, with a null right side when it has none', () => {
    const h = setup('left')
    h.send('R', 'k', 'a', 1)
    expect(h.take()).toEqual([])
    h.send('L', 'k', 'A', 2).send('L', 'j', 'J', 3)
    expect(h.take()).toEqual([
      { key: 'k', value: 'A+a', timestamp: 2 },
      { key: 'j', value: 'J+null', timestamp: 3 },
    ])
    h.send('R', 'k', null, 4)
    expect(h.take()).toEqual([{ key: 'k', value: 'A+null', timestamp: 4 }])
    h.send('L', 'k', null, 5)
    expect(h.take()).toEqual([{ key: 'k', value: null, timestamp: 5 }])
    h.send('R', 'k', 'b', 6)
    expect(h.take()).toEqual([])
    h.close()
  })
})

describe('table-table outer join', () => {
  it('emits while either row exists and a tombstone once both are gone', () => {
    const h = setup('outer')
    h.send('R', 'k', 'a', 1)
    expect(h.take()).toEqual([{ key: 'k', value: 'null+a', timestamp: 1 }])
    h.send('L', 'k', 'A', 2)
    expect(h.take()).toEqual([{ key: 'k', value: 'A+a', timestamp: 2 }])
    h.send('R', 'k', null, 3)
    expect(h.take()).toEqual([{ key: 'k', value: 'A+null', timestamp: 3 }])
    h.send('L', 'k', null, 4)
    expect(h.take()).toEqual([{ key: 'k', value: null, timestamp: 4 }])
    h.send('L', 'k', null, 5)
    expect(h.take()).toEqual([])
    h.close()
  })
})
