import { describe, expect, it } from 'vitest'
import type { Windowed } from '../api/record.js'
import { isStreamsError } from '../errors.js'
import type { WindowStore } from '../state/store-types.js'
import { Stores } from '../state/stores.js'
import { TimeWindows } from '../windows/time-windows.js'
import { ProcessorHarness } from './__fixtures__/processor-harness.js'
import { jsonSerde, stringSerde } from './__fixtures__/serdes.js'
import { TimeWindowAggregateProcessor } from './time-window-aggregate.js'
import {
  type WindowAggregation,
  aggregateAggregation,
  countAggregation,
  reduceAggregation,
} from './window-aggregation.js'

const MINUTE = 60_000

function setUp<V, A>(windows: TimeWindows, aggregation: WindowAggregation<string, V, A>, caching = true) {
  const harness = new ProcessorHarness()
  const builder = Stores.inMemoryWindowStore('views', stringSerde, jsonSerde<A>(), {
    windowSizeMs: windows.sizeMs,
    retentionMs: windows.retentionMs,
  })
  harness.addStore((caching ? builder : builder.withCachingDisabled()).build())
  const processor = new TimeWindowAggregateProcessor({ storeName: 'views', windows, aggregation })
  const node = harness.node(processor)
  const store = harness.store<WindowStore<string, A>>('views')
  return { harness, processor, node, store }
}

function updates<A>(output: readonly { key: Windowed<string> | null; value: A | null }[]) {
  return output.map((r) => [r.key?.key, r.key?.window.start, r.key?.window.end, r.value])
}

describe('TimeWindowAggregateProcessor', () => {
  it('counts per key per tumbling window and forwards each update as a windowed table record', () => {
    const { harness, node, store } = setUp(
      TimeWindows.ofSizeAndGrace(MINUTE, 10_000),
      countAggregation<string, string>(),
    )
    harness.pipe(node, 'alice', '/home', 0)
    harness.pipe(node, 'alice', '/cart', 30_000)
    harness.pipe(node, 'bob', '/home', 59_999)
    harness.pipe(node, 'alice', '/home', MINUTE)
    expect(updates(node.output)).toEqual([
      ['alice', 0, MINUTE, 1],
      ['alice', 0, MINUTE, 2],
      ['bob', 0, MINUTE, 1],
      ['alice', MINUTE, 2 * MINUTE, 1],
    ])
    expect(store.fetch('alice', 0)).toBe(2)
    expect(store.fetch('alice', MINUTE)).toBe(1)
    expect(node.output[3]!.timestamp).toBe(MINUTE)
  })

  it('processes an out-of-order record inside the grace and counts it; drops and counts one after it', () => {
    const { harness, processor, node, store } = setUp(
      TimeWindows.ofSizeAndGrace(MINUTE, 10_000),
      countAggregation<string, string>(),
    )
    harness.pipe(node, 'alice', 'a', 10_000)
    harness.pipe(node, 'bob', 'b', 65_000)
    // Stream time 65 s: the first minute closes at 70 s, so this one still counts.
    harness.pipe(node, 'alice', 'c', 55_000)
    expect(store.fetch('alice', 0)).toBe(2)
    expect(processor.counters.outOfOrder).toBe(1)
    harness.pipe(node, 'carol', 'd', 70_000)
    // Stream time 70 s = end + grace: the first minute is closed.
    const before = node.output.length
    harness.pipe(node, 'alice', 'e', 59_999)
    expect(node.output.length).toBe(before)
    expect(store.fetch('alice', 0)).toBe(2)
    expect(processor.counters).toMatchObject({ droppedLate: 1, outOfOrder: 1 })
    expect(harness.metrics).toMatchObject({ droppedLate: 1, outOfOrder: 1 })
  })

  it('with no grace drops a record for a window that has ended', () => {
    const { harness, processor, node } = setUp(
      TimeWindows.ofSizeWithNoGrace(10),
      countAggregation<string, string>(),
      false,
    )
    harness.pipe(node, 'k', 'v', 9)
    harness.pipe(node, 'k', 'v', 10)
    harness.pipe(node, 'k', 'v', 9)
    expect(updates(node.output)).toEqual([
      ['k', 0, 10, 1],
      ['k', 10, 20, 1],
    ])
    expect(processor.counters.droppedLate).toBe(1)
  })

  it('updates every hopping window of a record, and only the open ones of a late record', () => {
    const { harness, processor, node, store } = setUp(
      TimeWindows.ofSizeWithNoGrace(10).advanceBy(5),
      countAggregation<string, string>(),
    )
    harness.pipe(node, 'k', 'v', 7)
    expect(updates(node.output)).toEqual([
      ['k', 0, 10, 1],
      ['k', 5, 15, 1],
    ])
    harness.pipe(node, 'k', 'v', 11)
    // Stream time 11: [0, 10) is closed, [5, 15) is open, so a record at 8 updates [5, 15) only.
    node.output.length = 0
    harness.pipe(node, 'k', 'v', 8)
    expect(updates(node.output)).toEqual([['k', 5, 15, 3]])
    expect(store.fetch('k', 5)).toBe(3)
    expect(processor.counters).toMatchObject({ droppedLate: 0, outOfOrder: 1 })
  })

  it('reduces and aggregates', () => {
    const sum = setUp(
      TimeWindows.ofSizeWithNoGrace(100),
      reduceAggregation<string, number>((a, b) => a + b),
    )
    sum.harness.pipe(sum.node, 'k', 5, 1)
    sum.harness.pipe(sum.node, 'k', 7, 2)
    expect(sum.store.fetch('k', 0)).toBe(12)

    const pages = setUp(
      TimeWindows.ofSizeWithNoGrace(100),
      aggregateAggregation<string, string, string[]>(
        () => [],
        (_key, page, list) => [...list, page],
      ),
    )
    pages.harness.pipe(pages.node, 'k', '/a', 1)
    pages.harness.pipe(pages.node, 'k', '/b', 99)
    expect(pages.store.fetch('k', 0)).toEqual(['/a', '/b'])
    expect(pages.node.output.at(-1)!.value).toEqual(['/a', '/b'])
  })

  it('skips records with a null key, a null value or a negative timestamp', () => {
    const { harness, processor, node } = setUp(TimeWindows.ofSizeWithNoGrace(10), countAggregation<string, string>())
    harness.pipe(node, null, 'v', 1)
    harness.pipe(node, 'k', null, 1)
    harness.pipe(node, 'k', 'v', -1)
    expect(node.output).toEqual([])
    expect(processor.counters).toMatchObject({ skipped: 3, droppedLate: 0 })
  })

  it('refuses a store of another window size or a retention shorter than size + grace', () => {
    const windows = TimeWindows.ofSizeAndGrace(10, 5)
    const harness = new ProcessorHarness()
    harness.addStore(
      Stores.inMemoryWindowStore('other-size', stringSerde, jsonSerde<number>(), {
        windowSizeMs: 20,
        retentionMs: 30,
      }).build(),
    )
    harness.addStore(
      Stores.inMemoryWindowStore('short', stringSerde, jsonSerde<number>(), {
        windowSizeMs: 10,
        retentionMs: 12,
      }).build(),
    )
    const caught = (storeName: string) => {
      try {
        harness.node(new TimeWindowAggregateProcessor({ storeName, windows, aggregation: countAggregation() }))
      } catch (e) {
        return e
      }
      return undefined
    }
    expect(isStreamsError(caught('other-size'), 'TOPOLOGY')).toBe(true)
    expect(isStreamsError(caught('short'), 'CONFIG')).toBe(true)
  })
})
