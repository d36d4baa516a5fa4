import { describe, expect, it } from 'vitest'
import { stableKey } from './stable-key.js'
import { SuppressBuffer } from './suppress-buffer.js'

describe('SuppressBuffer', () => {
  it('keeps the latest value per key and hands keys out by due time, then arrival', () => {
    const buffer = new SuppressBuffer<{ id: number }, string>(stableKey, (_k, v) => (v ?? '').length)
    buffer.put({ id: 1 }, 'a', 0, [], 30)
    buffer.put({ id: 2 }, 'bb', 1, [], 10)
    buffer.put({ id: 3 }, 'c', 2, [], 30)
    buffer.put({ id: 1 }, 'aaaa', 3, [], 5) // an update keeps the key's due time
    expect(buffer.size).toBe(3)
    expect(buffer.bytes).toBe(7)
    const order: [number, string | null][] = []
    for (let e = buffer.poll(); e !== undefined; e = buffer.poll()) order.push([e.key.id, e.value])
    expect(order).toEqual([
      [2, 'bb'],
      [1, 'aaaa'],
      [3, 'c'],
    ])
    expect(buffer.bytes).toBe(0)
  })

  it('orders many keys like a sort would', () => {
    const buffer = new SuppressBuffer<number, number>(stableKey, () => 1)
    const dues = Array.from({ length: 200 }, (_, i) => (i * 7919) % 101)
    for (const [i, due] of dues.entries()) buffer.put(i, i, 0, [], due)
    const polled: number[] = []
    for (let e = buffer.poll(); e !== undefined; e = buffer.poll()) polled.push(e.dueMs)
    expect(polled).toEqual([...dues].sort((a, b) => a - b))
  })
})
