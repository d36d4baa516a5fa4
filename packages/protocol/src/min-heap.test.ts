import { describe, expect, it } from 'vitest'
import { MinHeap } from './min-heap.js'

/** A small deterministic generator, so a failure repeats. */
function numbers(seed: number, count: number): number[] {
  let x = seed
  return Array.from({ length: count }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31
    return x % 1000
  })
}

describe('MinHeap', () => {
  it('gives items back in order, however they were pushed', () => {
    const input = numbers(7, 500)
    const heap = new MinHeap<number>((a, b) => a < b)
    for (const n of input) heap.push(n)
    expect(heap.size).toBe(500)
    expect(heap.peek()).toBe(Math.min(...input))
    const out: number[] = []
    for (let n = heap.pop(); n !== undefined; n = heap.pop()) out.push(n)
    expect(out).toEqual([...input].sort((a, b) => a - b))
    expect(heap.size).toBe(0)
    expect(heap.pop()).toBeUndefined()
  })

  it('keeps its order across pushes between pops, ties by the order function', () => {
    const heap = new MinHeap<{ due: number; seq: number }>(
      (a, b) => a.due < b.due || (a.due === b.due && a.seq < b.seq),
    )
    heap.push({ due: 5, seq: 0 })
    heap.push({ due: 5, seq: 1 })
    heap.push({ due: 1, seq: 2 })
    expect(heap.pop()).toEqual({ due: 1, seq: 2 })
    heap.push({ due: 3, seq: 3 })
    expect([heap.pop(), heap.pop(), heap.pop()].map((e) => e?.seq)).toEqual([3, 0, 1])
  })

  it('retain drops what it is told to and stays ordered; clear empties it', () => {
    const heap = new MinHeap<number>((a, b) => a < b)
    for (const n of numbers(3, 200)) heap.push(n)
    heap.retain((n) => n % 2 === 0)
    const out: number[] = []
    for (let n = heap.pop(); n !== undefined; n = heap.pop()) out.push(n)
    expect(out).toEqual(
      numbers(3, 200)
        .filter((n) => n % 2 === 0)
        .sort((a, b) => a - b),
    )
    heap.push(1)
    heap.clear()
    expect(heap.size).toBe(0)
  })
})
