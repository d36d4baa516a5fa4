import { describe, expect, it } from 'vitest'
import type { KeyValueStore } from '../state/store-types.js'
import { Stores } from '../state/stores.js'
import { JoinHarness, stringSerde } from './__fixtures__/join-harness.js'
import { streamTableJoin } from './stream-table-join.js'
import { tableStoreWriter } from './table-store-writer.js'

function setup(kind: 'inner' | 'left') {
  const table = Stores.inMemoryKeyValueStore('users', stringSerde, stringSerde, { logging: false })
  const h = new JoinHarness<string, string>([table])
  h.add('table', tableStoreWriter<string, string>('users'))
  h.add(
    'stream',
    streamTableJoin<string, string, string, string>({ kind, tableStore: 'users', joiner: (v, t) => `${v}@${t}` }),
  )
  return h
}

describe('stream-table join', () => {
  it('inner: joins a stream record with the table row at processing time, and a table update emits nothing', () => {
    const h = setup('inner')
    h.send('stream', 'u1', 'click', 1)
    expect(h.take()).toEqual([])
    h.send('table', 'u1', 'alice', 2)
    expect(h.take()).toEqual([])
    h.send('stream', 'u1', 'view', 3)
    expect(h.take()).toEqual([{ key: 'u1', value: 'view@alice', timestamp: 3 }])
    h.send('table', 'u1', 'alicia', 4).send('stream', 'u1', 'buy', 5)
    expect(h.take()).toEqual([{ key: 'u1', value: 'buy@alicia', timestamp: 5 }])
    h.close()
  })

  it('takes the row as it is when the stream record is processed, even for an out-of-order stream record', () => {
    const h = setup('inner')
    h.send('table', 'u1', 'alice', 100).send('stream', 'u1', 'old-click', 10)
    expect(h.take()).toEqual([{ key: 'u1', value: 'old-click@alice', timestamp: 10 }])
    h.close()
  })

  it('inner: a tombstone deletes the row, so later stream records find nothing', () => {
    const h = setup('inner')
    h.send('table', 'u1', 'alice', 1).send('table', 'u1', null, 2).send('stream', 'u1', 'click', 3)
    expect(h.take()).toEqual([])
    expect(h.store<KeyValueStore<string, string>>('users').get('u1')).toBeUndefined()
    h.close()
  })

  it('inner: drops a stream record without a key (counted) or without a match (not counted)', () => {
    const h = setup('inner')
    h.send('stream', null, 'click', 1).send('stream', 'nobody', 'click', 2)
    expect(h.take()).toEqual([])
    expect(h.metrics.droppedInvalid).toBe(1)
    h.close()
  })

  it('left: emits with a null table value when there is no key or no row', () => {
    const h = setup('left')
    h.send('table', 'u1', 'alice', 1)
    h.send('stream', null, 'anon', 2).send('stream', 'nobody', 'click', 3).send('stream', 'u1', 'view', 4)
    expect(h.take()).toEqual([
      { key: null, value: 'anon@null', timestamp: 2 },
      { key: 'nobody', value: 'click@null', timestamp: 3 },
      { key: 'u1', value: 'view@alice', timestamp: 4 },
    ])
    h.send('table', 'u1', null, 5).send('stream', 'u1', 'again', 6)
    expect(h.take()).toEqual([{ key: 'u1', value: 'again@null', timestamp: 6 }])
    h.close()
  })

  it('drops and counts stream records without a value, and table records without a key', () => {
    const h = setup('left')
    h.send('stream', 'u1', null, 1).send('table', null, 'nokey', 2)
    expect(h.take()).toEqual([])
    expect(h.metrics.droppedInvalid).toBe(2)
    h.close()
  })
})
