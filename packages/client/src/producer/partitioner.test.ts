import { describe, expect, it } from 'vitest'
import { PartitionChooser } from './partitioner.js'

const k = (s: string): Buffer => Buffer.from(s, 'utf8')
const rec = (
  key: string | null,
  partition?: number,
): { key: Buffer | null; value: Buffer | null; partition?: number } => ({
  key: key === null ? null : k(key),
  value: k('v'),
  partition,
})
const never = (): boolean => false

describe('PartitionChooser', () => {
  it('maps keys with Java-compatible murmur2', () => {
    const c = new PartitionChooser({ keylessStrategy: 'sticky' })
    expect(c.choose('t', rec('key1'), 6, never)).toBe(2)
    expect(c.choose('t', rec('user-42'), 6, never)).toBe(4)
    // Stable: the same key always lands on the same partition.
    expect(c.choose('t', rec('user-42'), 6, never)).toBe(4)
  })

  it('lets an explicit partition win over the custom partitioner and the key', () => {
    let called = 0
    const c = new PartitionChooser({
      keylessStrategy: 'sticky',
      partitioner: () => {
        called++
        return 5
      },
    })
    expect(c.choose('t', rec('key1', 1), 6, never)).toBe(1)
    expect(called).toBe(0)
  })

  it('lets the custom partitioner win over the key', () => {
    const seen: unknown[] = []
    const c = new PartitionChooser({
      keylessStrategy: 'sticky',
      partitioner: (a) => {
        seen.push({ topic: a.topic, key: a.key?.toString(), count: a.partitionCount })
        return 3
      },
    })
    expect(c.choose('orders', rec('key1'), 6, never)).toBe(3)
    expect(seen).toEqual([{ topic: 'orders', key: 'key1', count: 6 }])
  })

  it('rejects a custom partitioner result out of range', () => {
    const c = new PartitionChooser({ keylessStrategy: 'sticky', partitioner: () => 6 })
    expect(() => c.choose('t', rec('a'), 6, never)).toThrow(RangeError)
    const d = new PartitionChooser({ keylessStrategy: 'sticky', partitioner: () => 1.5 })
    expect(() => d.choose('t', rec('a'), 6, never)).toThrow(RangeError)
  })

  it('sticky: keeps the partition while its batch is open, switches once it is drained or full', () => {
    const randoms = [0.5, 0.1, 0.9]
    const c = new PartitionChooser({ keylessStrategy: 'sticky', random: () => randoms.shift() ?? 0 })
    let open = true
    const first = c.choose('t', rec(null), 6, () => open)
    expect(first).toBe(3) // floor(0.5 * 6)
    for (let i = 0; i < 10; i++) expect(c.choose('t', rec(null), 6, () => open)).toBe(first)
    open = false // the batch was sent (or filled up)
    const second = c.choose('t', rec(null), 6, () => open)
    expect(second).not.toBe(first)
    expect(second).toBe(0) // floor(0.1 * 5) = 0, below the previous one
    open = true
    expect(c.choose('t', rec(null), 6, () => open)).toBe(second)
    open = false
    const third = c.choose('t', rec(null), 6, () => open)
    expect(third).toBe(5) // floor(0.9 * 5) = 4, >= previous 0 so +1
  })

  it('sticky: a new sticky partition is used for its first record even before a batch exists', () => {
    const c = new PartitionChooser({ keylessStrategy: 'sticky', random: () => 0.2 })
    // No batch is open yet for the chosen partition; it must not switch immediately.
    const p = c.choose('t', rec(null), 4, never)
    expect(p).toBe(0)
  })

  it('sticky: state is per topic', () => {
    const randoms = [0, 0.99]
    const c = new PartitionChooser({ keylessStrategy: 'sticky', random: () => randoms.shift() ?? 0 })
    expect(c.choose('a', rec(null), 4, () => true)).toBe(0)
    expect(c.choose('b', rec(null), 4, () => true)).toBe(3)
    expect(c.choose('a', rec(null), 4, () => true)).toBe(0)
  })

  it('round-robin: cycles through every partition in turn', () => {
    const c = new PartitionChooser({ keylessStrategy: 'round-robin', random: () => 0.5 })
    const got = Array.from({ length: 8 }, () => c.choose('t', rec(null), 4, never))
    expect(got).toEqual([2, 3, 0, 1, 2, 3, 0, 1])
  })

  it('keyed records ignore the keyless strategy', () => {
    const c = new PartitionChooser({ keylessStrategy: 'round-robin' })
    expect([1, 2, 3].map(() => c.choose('t', rec('key1'), 6, never))).toEqual([2, 2, 2])
  })
})
