import { describe, expect, it } from 'vitest'
import { InMemoryBytesEngine } from './in-memory-engine.js'
import { SortedBytesMap } from './sorted-bytes-map.js'

const b = (...bytes: number[]): Buffer => Buffer.from(bytes)
const keys = (range: Iterable<readonly [Buffer, unknown]>): number[][] => [...range].map(([key]) => [...key])

describe('SortedBytesMap', () => {
  it('orders keys as unsigned bytes (Buffer.compare), shorter prefix first', () => {
    const map = new SortedBytesMap<number>()
    const input = [b(0xff), b(0x01, 0x00), b(0x01), b(0x80), b(0x00), b(0x7f, 0xff), b()]
    for (const [i, key] of input.entries()) map.set(key, i)
    const expected = [...input].sort(Buffer.compare).map((key) => [...key])
    expect(keys(map.range())).toEqual(expected)
  })

  it('ranges with both bounds inclusive, either omitted', () => {
    const map = new SortedBytesMap<number>()
    for (let i = 0; i < 10; i++) map.set(b(i), i)
    expect(keys(map.range(b(3), b(5)))).toEqual([[3], [4], [5]])
    expect(keys(map.range(undefined, b(1)))).toEqual([[0], [1]])
    expect(keys(map.range(b(8)))).toEqual([[8], [9]])
    expect(keys(map.range(b(5), b(3)))).toEqual([])
    expect(keys(map.range(b(3, 0), b(4)))).toEqual([[4]])
  })

  it('iterates a snapshot of the keys: puts during iteration are safe and new keys unseen', () => {
    const map = new SortedBytesMap<number>()
    for (let i = 0; i < 5; i += 1) map.set(b(i * 2), i)
    const seen: number[][] = []
    for (const [key, value] of map.range()) {
      seen.push([key[0]!, value])
      map.set(b(key[0]! + 1), 100) // a new key between the walked ones
      map.set(b(8), 99) // overwrite one not reached yet: its newest value is seen
      if (key[0] === 2) map.delete(b(4)) // deleted before it is reached: skipped
    }
    expect(seen).toEqual([
      [0, 0],
      [2, 1],
      [6, 3],
      [8, 99],
    ])
    expect(keys(map.range())).toEqual([[0], [1], [2], [3], [6], [7], [8], [9]])
  })

  it('a key deleted and put again appears once', () => {
    const map = new SortedBytesMap<number>()
    map.set(b(1), 1)
    map.set(b(2), 2)
    expect(map.size).toBe(2)
    keys(map.range())
    map.delete(b(1))
    map.set(b(1), 3)
    map.delete(b(2))
    expect([...map.range()].map(([key, value]) => [key[0], value])).toEqual([[1, 3]])
    expect(map.size).toBe(1)
  })

  it('stays ordered under many random puts and deletes (checked against a sorted copy)', () => {
    const map = new SortedBytesMap<number>()
    const model = new Map<string, number>()
    let seed = 7
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    for (let step = 0; step < 5000; step++) {
      const key = Buffer.from([rand(16), rand(16)].slice(0, 1 + rand(2)))
      if (rand(3) === 0) {
        map.delete(key)
        model.delete(key.toString('hex'))
      } else {
        map.set(key, step)
        model.set(key.toString('hex'), step)
      }
      if (step % 97 === 0) {
        const expected = [...model.entries()]
          .map(([hex, value]) => [Buffer.from(hex, 'hex'), value] as const)
          .sort((x, y) => Buffer.compare(x[0], y[0]))
          .map(([key, value]) => [key.toString('hex'), value])
        expect([...map.range()].map(([key, value]) => [key.toString('hex'), value])).toEqual(expected)
      }
    }
  })
})

describe('InMemoryBytesEngine', () => {
  it('puts, gets, deletes with null and counts', () => {
    const engine = new InMemoryBytesEngine()
    engine.open('/unused')
    engine.put(b(1), b(10))
    engine.put(b(2), b(20))
    expect(engine.get(b(1))).toEqual(b(10))
    engine.put(b(1), null)
    expect(engine.get(b(1))).toBeUndefined()
    expect(engine.approximateNumEntries()).toBe(1)
    expect([...engine.range()].map(([key, value]) => [[...key], [...value]])).toEqual([[[2], [20]]])
  })
})
