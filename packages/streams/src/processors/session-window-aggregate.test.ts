import { describe, expect, it } from 'vitest'
import type { StreamRecord, Windowed } from '../api/record.js'
import { isStreamsError } from '../errors.js'
import type { SessionStore } from '../state/store-types.js'
import { Stores } from '../state/stores.js'
import { SessionWindows } from '../windows/session-windows.js'
import { ProcessorHarness } from './__fixtures__/processor-harness.js'
import { jsonSerde, stringSerde } from './__fixtures__/serdes.js'
import { SessionWindowAggregateProcessor } from './session-window-aggregate.js'
import {
  type WindowAggregation,
  aggregateAggregation,
  countAggregation,
  reduceAggregation,
} from './window-aggregation.js'

function setUp<V, A>(
  windows: SessionWindows,
  aggregation: WindowAggregation<string, V, A>,
  retentionMs = windows.retentionMs,
) {
  const harness = new ProcessorHarness()
  harness.addStore(Stores.inMemorySessionStore('sessions', stringSerde, jsonSerde<A>(), { retentionMs }).build())
  const processor = new SessionWindowAggregateProcessor({ storeName: 'sessions', windows, aggregation })
  const node = harness.node(processor)
  const store = harness.store<SessionStore<string, A>>('sessions')
  return { harness, processor, node, store }
}

function updates<A>(output: readonly StreamRecord<Windowed<string>, A>[]) {
  return output.map((r) => [r.key!.key, r.key!.window.start, r.key!.window.end, r.value])
}

function sessionsOf<A>(store: SessionStore<string, A>, key: string) {
  return [...store.fetch(key)].map(({ key: k, value }) => [k.window.start, k.window.end, value])
}

describe('SessionWindowAggregateProcessor', () => {
  it('starts a session per key, grows it within the gap and tombstones the session it replaces', () => {
    const { harness, node, store } = setUp(SessionWindows.ofInactivityGapWithNoGrace(5), countAggregation())
    harness.pipe(node, 'k', 'v', 0)
    harness.pipe(node, 'j', 'v', 1)
    harness.pipe(node, 'k', 'v', 3)
    expect(sessionsOf(store, 'k')).toEqual([[0, 3, 2]])
    harness.pipe(node, 'k', 'v', 20)
    expect(updates(node.output)).toEqual([
      ['k', 0, 0, 1],
      ['j', 1, 1, 1],
      ['k', 0, 0, null],
      ['k', 0, 3, 2],
      ['k', 20, 20, 1],
    ])
    expect(node.output[3]!.timestamp).toBe(3)
    // [0, 3] is past its retention (gap + grace) once stream time is 20.
    expect(sessionsOf(store, 'k')).toEqual([[20, 20, 1]])
  })

  it('updates a session in place when the record falls inside it', () => {
    const { harness, node } = setUp(SessionWindows.ofInactivityGapWithNoGrace(5), countAggregation())
    harness.pipe(node, 'k', 'v', 0)
    harness.pipe(node, 'k', 'v', 4)
    node.output.length = 0
    harness.pipe(node, 'k', 'v', 2)
    expect(updates(node.output)).toEqual([['k', 0, 4, 3]])
  })

  it('merges two sessions that a record bridges, tombstoning both', () => {
    const { harness, processor, node, store } = setUp(SessionWindows.ofInactivityGapAndGrace(5, 10), countAggregation())
    harness.pipe(node, 'k', 'v', 0)
    harness.pipe(node, 'k', 'v', 10)
    node.output.length = 0
    harness.pipe(node, 'k', 'v', 5)
    expect(updates(node.output)).toEqual([
      ['k', 0, 0, null],
      ['k', 10, 10, null],
      ['k', 0, 10, 3],
    ])
    expect(sessionsOf(store, 'k')).toEqual([[0, 10, 3]])
    expect(processor.counters.outOfOrder).toBe(1)
  })

  it('drops a record whose session is closed, and processes one inside the grace', () => {
    const { harness, processor, node, store } = setUp(SessionWindows.ofInactivityGapAndGrace(5, 2), countAggregation())
    harness.pipe(node, 'k', 'v', 0)
    harness.pipe(node, 'j', 'v', 20)
    node.output.length = 0
    // [0, 0] closed at 0 + 5 + 2 + 1 = 8; a session [3, 3] alone would close at 11 <= 20.
    harness.pipe(node, 'k', 'v', 3)
    expect(node.output).toEqual([])
    expect(sessionsOf(store, 'k')).toEqual([])
    // [14, 14] closes at 22 > 20: out of order but inside the grace.
    harness.pipe(node, 'k', 'v', 14)
    expect(updates(node.output)).toEqual([['k', 14, 14, 1]])
    expect(processor.counters).toMatchObject({ droppedLate: 1, outOfOrder: 1 })
    expect(harness.metrics).toMatchObject({ droppedLate: 1, outOfOrder: 1 })
  })

  it('never merges a closed session again, even when a record bridges it to an open one', () => {
    // A store that keeps sessions longer than gap + grace, so the closed one is still found.
    const { harness, node, store } = setUp(SessionWindows.ofInactivityGapWithNoGrace(5), countAggregation(), 100)
    harness.pipe(node, 'k', 'v', 0)
    harness.pipe(node, 'k', 'v', 10)
    node.output.length = 0
    // Stream time 10: [0, 0] closed at 6, [10, 10] is open until 16.
    harness.pipe(node, 'k', 'v', 5)
    expect(updates(node.output)).toEqual([
      ['k', 10, 10, null],
      ['k', 5, 10, 2],
    ])
    expect(sessionsOf(store, 'k')).toEqual([
      [0, 0, 1],
      [5, 10, 2],
    ])
  })

  it('reduces and aggregates, merging sessions with the reducer or the merger', () => {
    const sum = setUp(
      SessionWindows.ofInactivityGapAndGrace(5, 100),
      reduceAggregation<string, number>((a, b) => a + b),
    )
    sum.harness.pipe(sum.node, 'k', 1, 0)
    sum.harness.pipe(sum.node, 'k', 10, 10)
    sum.harness.pipe(sum.node, 'k', 100, 5)
    expect(sessionsOf(sum.store, 'k')).toEqual([[0, 10, 111]])

    const pages = setUp(
      SessionWindows.ofInactivityGapAndGrace(5, 100),
      aggregateAggregation<string, string, string[]>(
        () => [],
        (_key, page, list) => [...list, page],
        (_key, older, newer) => [...older, ...newer],
      ),
    )
    pages.harness.pipe(pages.node, 'k', '/a', 0)
    pages.harness.pipe(pages.node, 'k', '/c', 10)
    pages.harness.pipe(pages.node, 'k', '/b', 5)
    expect(sessionsOf(pages.store, 'k')).toEqual([[0, 10, ['/a', '/c', '/b']]])
  })

  it('refuses an aggregate without a merger and a store that keeps sessions less than gap + grace', () => {
    let caught: unknown
    try {
      new SessionWindowAggregateProcessor({
        storeName: 'sessions',
        windows: SessionWindows.ofInactivityGapWithNoGrace(5),
        aggregation: aggregateAggregation<string, string, number>(
          () => 0,
          (_k, _v, n) => n + 1,
        ),
      })
    } catch (e) {
      caught = e
    }
    expect(isStreamsError(caught, 'TOPOLOGY')).toBe(true)

    const harness = new ProcessorHarness()
    harness.addStore(Stores.inMemorySessionStore('short', stringSerde, jsonSerde<number>(), { retentionMs: 3 }).build())
    caught = undefined
    try {
      harness.node(
        new SessionWindowAggregateProcessor({
          storeName: 'short',
          windows: SessionWindows.ofInactivityGapAndGrace(5, 1),
          aggregation: countAggregation(),
        }),
      )
    } catch (e) {
      caught = e
    }
    expect(isStreamsError(caught, 'CONFIG')).toBe(true)
  })
})
