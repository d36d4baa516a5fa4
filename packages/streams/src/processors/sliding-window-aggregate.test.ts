import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { WindowStore } from '../state/store-types.js'
import { Stores } from '../state/stores.js'
import { SlidingWindows } from '../windows/sliding-windows.js'
import { ProcessorHarness } from './__fixtures__/processor-harness.js'
import { jsonSerde, stringSerde } from './__fixtures__/serdes.js'
import {
  SlidingWindowAggregateProcessor,
  slidingRecordsRetentionMs,
  slidingRecordsStoreName,
} from './sliding-window-aggregate.js'
import { slidingRecordsSerde } from './sliding-records-serde.js'
import { type WindowAggregation, countAggregation, reduceAggregation } from './window-aggregation.js'

function setUp<V, A>(windows: SlidingWindows, aggregation: WindowAggregation<string, V, A>) {
  const harness = new ProcessorHarness()
  harness.addStore(
    Stores.inMemoryWindowStore('clicks', stringSerde, jsonSerde<A>(), {
      windowSizeMs: windows.timeDifferenceMs,
      retentionMs: windows.retentionMs,
    }).build(),
  )
  harness.addStore(
    Stores.inMemoryWindowStore(slidingRecordsStoreName('clicks'), stringSerde, slidingRecordsSerde(jsonSerde<V>()), {
      windowSizeMs: 1,
      retentionMs: slidingRecordsRetentionMs(windows),
    }).build(),
  )
  const processor = new SlidingWindowAggregateProcessor({ storeName: 'clicks', windows, aggregation })
  const node = harness.node(processor)
  const store = harness.store<WindowStore<string, A>>('clicks')
  return { harness, processor, node, store }
}

function windowsOf<A>(store: WindowStore<string, A>): [string, number, number, A][] {
  return [...store.all()]
    .map(({ key, value }): [string, number, number, A] => [key.key, key.window.start, key.window.end, value])
    .sort((a, b) => a[0].localeCompare(b[0]) || a[1] - b[1])
}

/** The windows KIP-450 defines for one key's records, with their counts, computed directly. */
function expectedCounts(timestamps: readonly number[], difference: number): [string, number, number, number][] {
  const windows = new Map<number, number>()
  const count = (start: number) => timestamps.filter((t) => t >= start && t <= start + difference).length
  for (const t of timestamps) {
    const left = Math.max(0, t - difference)
    windows.set(left, count(left))
    if (timestamps.some((u) => u >= t + 1 && u <= t + 1 + difference)) windows.set(t + 1, count(t + 1))
  }
  return [...windows.entries()].sort((a, b) => a[0] - b[0]).map(([start, n]) => ['k', start, start + difference, n])
}

describe('SlidingWindowAggregateProcessor', () => {
  it('makes the left window of each record and the right window of the record before it (in order)', () => {
    const { harness, node, store } = setUp(SlidingWindows.ofTimeDifferenceAndGrace(10, 100), countAggregation())
    harness.pipe(node, 'k', 'a', 10)
    harness.pipe(node, 'k', 'b', 15)
    harness.pipe(node, 'k', 'c', 30)
    expect(node.output.map((r) => [r.key!.window.start, r.key!.window.end, r.value])).toEqual([
      [0, 10, 1],
      [5, 15, 2],
      [11, 21, 1],
      [20, 30, 1],
    ])
    expect(windowsOf(store)).toEqual(expectedCounts([10, 15, 30], 10))
  })

  it('puts an out-of-order record into exactly the windows it belongs to, and makes its right window', () => {
    const { harness, processor, node, store } = setUp(
      SlidingWindows.ofTimeDifferenceAndGrace(10, 100),
      countAggregation(),
    )
    harness.pipe(node, 'k', 'a', 10)
    harness.pipe(node, 'k', 'b', 20)
    node.output.length = 0
    harness.pipe(node, 'k', 'c', 15)
    expect(node.output.map((r) => [r.key!.window.start, r.value])).toEqual([
      [5, 2],
      [10, 3],
      [11, 2],
      [16, 1],
    ])
    expect(windowsOf(store)).toEqual(expectedCounts([10, 15, 20], 10))
    expect(processor.counters.outOfOrder).toBe(1)
  })

  it('puts records earlier than the difference into [0, difference]', () => {
    const { harness, node, store } = setUp(SlidingWindows.ofTimeDifferenceAndGrace(10, 100), countAggregation())
    harness.pipe(node, 'k', 'a', 3)
    harness.pipe(node, 'k', 'b', 0)
    harness.pipe(node, 'k', 'c', 8)
    expect(windowsOf(store)).toEqual(expectedCounts([3, 0, 8], 10))
    expect(store.fetch('k', 0)).toBe(3)
  })

  it('matches the definition for any arrival order when nothing is late', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 80 }), { minLength: 1, maxLength: 12 }), (timestamps) => {
        const { harness, node, store } = setUp(SlidingWindows.ofTimeDifferenceAndGrace(10, 1000), countAggregation())
        for (const t of timestamps) harness.pipe(node, 'k', 'v', t)
        expect(windowsOf(store)).toEqual(expectedCounts(timestamps, 10))
      }),
      { numRuns: 200 },
    )
  })

  it('drops a record whose last window is closed, and leaves closed windows of a record inside grace alone', () => {
    const { harness, processor, node, store } = setUp(
      SlidingWindows.ofTimeDifferenceWithNoGrace(10),
      countAggregation(),
    )
    harness.pipe(node, 'k', 'a', 10)
    harness.pipe(node, 'k', 'b', 30)
    node.output.length = 0
    // 15 + 10 < 30: even [15, 25] is closed.
    harness.pipe(node, 'k', 'late', 15)
    expect(node.output).toEqual([])
    expect(processor.counters.droppedLate).toBe(1)
    expect(harness.metrics.droppedLate).toBe(1)
    // 20 + 10 = 30: [20, 30] is still open; [10, 20] and [11, 21] are closed and not touched.
    harness.pipe(node, 'k', 'c', 20)
    expect(node.output.map((r) => [r.key!.window.start, r.value])).toEqual([
      [20, 2],
      [21, 1],
    ])
    expect(store.fetch('k', 20)).toBe(2)
    expect(processor.counters).toMatchObject({ droppedLate: 1, outOfOrder: 1 })
  })

  it('reduces with the records of each window in time order', () => {
    const { harness, store } = (() => {
      const s = setUp(
        SlidingWindows.ofTimeDifferenceAndGrace(5, 100),
        reduceAggregation<string, string>((a, b) => a + b),
      )
      s.harness.pipe(s.node, 'k', 'b', 12)
      s.harness.pipe(s.node, 'k', 'a', 10)
      s.harness.pipe(s.node, 'k', 'c', 14)
      return s
    })()
    expect(harness.streamTimeMs).toBe(14)
    expect(store.fetch('k', 9)).toBe('abc')
    expect(store.fetch('k', 11)).toBe('bc')
  })
})
