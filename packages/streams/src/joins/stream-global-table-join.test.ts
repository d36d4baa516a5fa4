import { describe, expect, it } from 'vitest'
import type { KeyValueStore } from '../state/store-types.js'
import { Stores } from '../state/stores.js'
import { JoinHarness, stringSerde } from './__fixtures__/join-harness.js'
import { streamGlobalTableJoin } from './stream-global-table-join.js'

interface Order {
  readonly product: string | null
  readonly qty: number
}

function setup(kind: 'inner' | 'left') {
  const products = Stores.inMemoryKeyValueStore('products', stringSerde, stringSerde, { logging: false })
  const h = new JoinHarness<string, string>([products])
  h.store<KeyValueStore<string, string>>('products').put('p1', 'lamp')
  h.add(
    'orders',
    streamGlobalTableJoin<string, Order, string, string, string>({
      kind,
      globalStore: 'products',
      keySelector: (_orderId, order) => order.product,
      joiner: (order, product, orderId) => `${orderId}:${order.qty}x${product}`,
    }),
  )
  return h
}

describe('stream-globalTable join', () => {
  it('inner: looks the row up by the key the selector computes from the record', () => {
    const h = setup('inner')
    h.send('orders', 'o1', { product: 'p1', qty: 2 }, 5)
    expect(h.take()).toEqual([{ key: 'o1', value: 'o1:2xlamp', timestamp: 5 }])
    h.send('orders', 'o2', { product: 'p9', qty: 1 }, 6).send('orders', 'o3', { product: null, qty: 1 }, 7)
    expect(h.take()).toEqual([])
    h.close()
  })

  it('inner: a stream record without a key still joins, since the selector decides the lookup key', () => {
    const h = setup('inner')
    h.send('orders', null, { product: 'p1', qty: 1 }, 1)
    expect(h.take()).toEqual([{ key: null, value: 'null:1xlamp', timestamp: 1 }])
    h.close()
  })

  it('sees the global table as it is now (a deleted row no longer joins)', () => {
    const h = setup('inner')
    h.store<KeyValueStore<string, string>>('products').delete('p1')
    h.send('orders', 'o1', { product: 'p1', qty: 2 }, 5)
    expect(h.take()).toEqual([])
    h.close()
  })

  it('left: emits with a null row when the selector gives no key or the table has none', () => {
    const h = setup('left')
    h.send('orders', 'o2', { product: 'p9', qty: 1 }, 6).send('orders', 'o3', { product: null, qty: 4 }, 7)
    expect(h.take()).toEqual([
      { key: 'o2', value: 'o2:1xnull', timestamp: 6 },
      { key: 'o3', value: 'o3:4xnull', timestamp: 7 },
    ])
    h.send('orders', 'o4', null, 8)
    expect(h.take()).toEqual([])
    expect(h.metrics.droppedInvalid).toBe(1)
    h.close()
  })
})
