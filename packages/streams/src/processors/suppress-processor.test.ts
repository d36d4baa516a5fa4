import { describe, expect, it } from 'vitest'
import type { StreamRecord, Windowed } from '../api/record.js'
import { isStreamsError } from '../errors.js'
import { Stores } from '../state/stores.js'
import { SessionWindows } from '../windows/session-windows.js'
import { TimeWindows } from '../windows/time-windows.js'
import { ProcessorHarness } from './__fixtures__/processor-harness.js'
import { jsonSerde, stringSerde } from './__fixtures__/serdes.js'
import { SessionWindowAggregateProcessor } from './session-window-aggregate.js'
import { SuppressProcessor } from './suppress-processor.js'
import { BufferConfig, maxBytes, maxRecords, unbounded, untilTimeLimit, untilWindowCloses } from './suppressed.js'
import { TimeWindowAggregateProcessor } from './time-window-aggregate.js'
import { countAggregation } from './window-aggregation.js'

const MINUTE = 60_000

function caught(fn: () => unknown): unknown {
  try {
    fn()
  } catch (e) {
    return e
  }
  return undefined
}

function finals(output: readonly StreamRecord<Windowed<string>, number>[]) {
  return output.map((r) => [r.key!.key, r.key!.window.start, r.value])
}

/** count per key per minute (10 s grace) -> suppress(untilWindowCloses(buffer)). */
function countThenSuppress(buffer = unbounded()) {
  const windows = TimeWindows.ofSizeAndGrace(MINUTE, 10_000)
  const harness = new ProcessorHarness()
  harness.addStore(
    Stores.inMemoryWindowStore('views', stringSerde, jsonSerde<number>(), {
      windowSizeMs: MINUTE,
      retentionMs: windows.retentionMs,
    }).build(),
  )
  const suppress = new SuppressProcessor<Windowed<string>, number>({
    name: 'final-views',
    suppressed: untilWindowCloses(buffer),
    windows,
  })
  const suppressNode = harness.node(suppress)
  const count = harness.node(
    new TimeWindowAggregateProcessor({ storeName: 'views', windows, aggregation: countAggregation<string, string>() }),
    [suppressNode],
  )
  return { harness, count, suppress, suppressNode }
}

describe('SuppressProcessor untilWindowCloses', () => {
  it('emits exactly one final result per window, once stream time reaches end + grace', () => {
    const { harness, count, suppressNode } = countThenSuppress()
    harness.pipe(count, 'alice', '/a', 0)
    harness.pipe(count, 'alice', '/b', 30_000)
    harness.pipe(count, 'bob', '/a', 50_000)
    harness.pipe(count, 'alice', '/c', 65_000)
    harness.pipe(count, 'alice', '/d', 55_000) // out of order, inside the grace
    harness.pipe(count, 'alice', '/e', 69_999)
    expect(suppressNode.output).toEqual([])
    harness.pipe(count, 'carol', '/a', 70_000) // the first minute closes
    expect(finals(suppressNode.output)).toEqual([
      ['alice', 0, 3],
      ['bob', 0, 1],
    ])
    expect(suppressNode.output[0]!.timestamp).toBe(55_000)
    harness.pipe(count, 'alice', '/late', 59_000) // dropped by the count
    harness.pipe(count, 'alice', '/f', 100_000)
    expect(suppressNode.output).toHaveLength(2)
    harness.pipe(count, 'bob', '/b', 130_000)
    expect(finals(suppressNode.output)).toEqual([
      ['alice', 0, 3],
      ['bob', 0, 1],
      ['alice', MINUTE, 3],
      ['carol', MINUTE, 1],
    ])
    expect(harness.metrics).toMatchObject({ droppedLate: 1, outOfOrder: 1 })
  })

  it('drops an update for a window that is already closed (never a second final result)', () => {
    const windows = TimeWindows.ofSizeWithNoGrace(10)
    const harness = new ProcessorHarness()
    const suppress = new SuppressProcessor<Windowed<string>, number>({
      name: 's',
      suppressed: untilWindowCloses(unbounded()),
      windows,
    })
    const node = harness.node(suppress)
    harness.pipe(node, { key: 'k', window: { start: 0, end: 10 } }, 1, 5)
    harness.pipe(node, { key: 'k', window: { start: 10, end: 20 } }, 1, 10)
    harness.pipe(node, { key: 'k', window: { start: 0, end: 10 } }, 2, 9)
    expect(node.output.map((r) => [r.key!.window.start, r.value])).toEqual([[0, 1]])
    expect(suppress.counters.droppedLate).toBe(1)
  })

  it('drops the tombstone of a merged-away session instead of emitting it', () => {
    const windows = SessionWindows.ofInactivityGapWithNoGrace(5)
    const harness = new ProcessorHarness()
    harness.addStore(
      Stores.inMemorySessionStore('sessions', stringSerde, jsonSerde<number>(), {
        retentionMs: windows.retentionMs,
      }).build(),
    )
    const suppressNode = harness.node(
      new SuppressProcessor<Windowed<string>, number>({
        name: 's',
        suppressed: untilWindowCloses(unbounded()),
        windows,
      }),
    )
    const count = harness.node(
      new SessionWindowAggregateProcessor({ storeName: 'sessions', windows, aggregation: countAggregation() }),
      [suppressNode],
    )
    harness.pipe(count, 'k', 'v', 0)
    harness.pipe(count, 'k', 'v', 3)
    // [0, 3] closes at 3 + 5 + 0 + 1 = 9.
    harness.pipe(count, 'j', 'v', 8)
    expect(suppressNode.output).toEqual([])
    harness.pipe(count, 'j', 'v', 9)
    expect(finals(suppressNode.output)).toEqual([['k', 0, 2]])
  })

  it('rebuilds its buffer from the upstream session store after a restart', () => {
    const windows = SessionWindows.ofInactivityGapWithNoGrace(5)
    const harness = new ProcessorHarness()
    harness.addStore(
      Stores.inMemorySessionStore('sessions', stringSerde, jsonSerde<number>(), {
        retentionMs: windows.retentionMs,
      }).build(),
    )
    const count = harness.node(
      new SessionWindowAggregateProcessor({ storeName: 'sessions', windows, aggregation: countAggregation() }),
    )
    harness.pipe(count, 'k', 'v', 0)
    harness.pipe(count, 'k', 'v', 3)
    harness.pipe(count, 'j', 'v', 6)
    // A restart: a new suppress node over the same (restored) store.
    const suppressNode = harness.node(
      new SuppressProcessor<Windowed<string>, number>({
        name: 's',
        suppressed: untilWindowCloses(unbounded()),
        windows,
        rebuildFromStore: 'sessions',
      }),
    )
    // [0, 3] closes at 9, [6, 6] at 12; the first record after the restart closes neither.
    harness.pipe(suppressNode, { key: 'x', window: { start: 7, end: 7 } }, 1, 7)
    expect(suppressNode.output).toEqual([])
    harness.pipe(suppressNode, { key: 'x', window: { start: 7, end: 9 } }, 2, 9)
    expect(finals(suppressNode.output)).toEqual([['k', 0, 2]])
    harness.pipe(suppressNode, { key: 'x', window: { start: 7, end: 12 } }, 3, 12)
    expect(finals(suppressNode.output)).toEqual([
      ['k', 0, 2],
      ['j', 6, 1],
    ])
  })

  it('stops with StreamsError RUNTIME when its bounded buffer is full', () => {
    const { harness, count, suppress } = countThenSuppress(maxRecords(1))
    harness.pipe(count, 'alice', '/a', 0)
    expect(
      isStreamsError(
        caught(() => harness.pipe(count, 'bob', '/a', 1)),
        'RUNTIME',
      ),
    ).toBe(true)
    expect(suppress.bufferedKeys).toBe(2)
  })

  it('counts bytes for maxBytes and refuses a buffer that emits early', () => {
    const { harness, count } = countThenSuppress(maxBytes(1_000))
    for (let i = 0; i < 5; i++) harness.pipe(count, `user-${i}`, '/a', i)
    const tiny = countThenSuppress(maxBytes(10))
    expect(
      isStreamsError(
        caught(() => tiny.harness.pipe(tiny.count, 'alice', '/a', 0)),
        'RUNTIME',
      ),
    ).toBe(true)
    expect(
      isStreamsError(
        caught(() => untilWindowCloses(maxRecords(5).emitEarlyWhenFull())),
        'CONFIG',
      ),
    ).toBe(true)
  })

  it('rebuilds its buffer from the upstream window store after a restart, and emits each open window once', () => {
    const windows = TimeWindows.ofSizeAndGrace(MINUTE, 10_000)
    const scenario = (rebuildFromStore: string | undefined) => {
      const { harness, count, suppressNode } = countThenSuppress()
      harness.pipe(count, 'alice', '/a', 0)
      harness.pipe(count, 'bob', '/a', 61_000)
      harness.pipe(count, 'alice', '/b', 65_000)
      expect(suppressNode.output).toEqual([])
      // A restart: the store survives (restored from its changelog), the in-memory buffer does not.
      const node = harness.node(
        new SuppressProcessor<Windowed<string>, number>({
          name: 'final-views',
          suppressed: untilWindowCloses(unbounded()),
          windows,
          rebuildFromStore,
        }),
      )
      harness.pipe(node, { key: 'carol', window: { start: MINUTE, end: 2 * MINUTE } }, 1, 70_000)
      const first = finals(node.output)
      harness.pipe(node, { key: 'carol', window: { start: 2 * MINUTE, end: 3 * MINUTE } }, 1, 130_000)
      return [first, finals(node.output).slice(first.length)]
    }
    expect(scenario('views')).toEqual([
      [['alice', 0, 1]],
      [
        ['alice', MINUTE, 1],
        ['bob', MINUTE, 1],
        ['carol', MINUTE, 1],
      ],
    ])
    // Without the rebuild the windows buffered before the restart are never emitted.
    expect(scenario(undefined)).toEqual([[], [['carol', MINUTE, 1]]])
    const error = caught(
      () => new SuppressProcessor({ name: 's', suppressed: untilTimeLimit(5, unbounded()), rebuildFromStore: 'views' }),
    )
    expect(isStreamsError(error, 'TOPOLOGY')).toBe(true)
  })

  it('needs the upstream windows and windowed keys', () => {
    const error = caught(() => new SuppressProcessor({ name: 's', suppressed: untilWindowCloses(unbounded()) }))
    expect(isStreamsError(error, 'TOPOLOGY')).toBe(true)
    const harness = new ProcessorHarness()
    const node = harness.node(
      new SuppressProcessor<string, number>({
        name: 's',
        suppressed: untilWindowCloses(unbounded()),
        windows: TimeWindows.ofSizeWithNoGrace(10),
      }),
    )
    expect(
      isStreamsError(
        caught(() => harness.pipe(node, 'plain-key', 1, 0)),
        'TOPOLOGY',
      ),
    ).toBe(true)
  })
})

describe('SuppressProcessor untilTimeLimit', () => {
  function limited(limitMs: number, buffer: BufferConfig) {
    const harness = new ProcessorHarness()
    const suppress = new SuppressProcessor<string, string>({
      name: 'rate',
      suppressed: untilTimeLimit(limitMs, buffer),
    })
    return { harness, suppress, node: harness.node(suppress) }
  }

  it("emits a key's latest value once it has been buffered the time limit of stream time", () => {
    const { harness, node } = limited(10, unbounded())
    harness.pipe(node, 'k', 'v1', 0)
    harness.pipe(node, 'k', 'v2', 5)
    harness.pipe(node, 'j', 'w1', 8)
    expect(node.output).toEqual([])
    harness.pipe(node, 'x', 'y', 10)
    expect(node.output.map((r) => [r.key, r.value, r.timestamp])).toEqual([['k', 'v2', 5]])
    harness.pipe(node, 'k', 'v3', 12) // buffered again, due at 22
    harness.pipe(node, 'x', 'y2', 20)
    expect(node.output.map((r) => [r.key, r.value])).toEqual([
      ['k', 'v2'],
      ['j', 'w1'],
      ['x', 'y2'],
    ])
  })

  it('emits the oldest key early when full, unless told to shut down', () => {
    const early = limited(100, maxRecords(1))
    early.harness.pipe(early.node, 'k', 'v1', 0)
    early.harness.pipe(early.node, 'j', 'w1', 1)
    expect(early.node.output.map((r) => [r.key, r.value])).toEqual([['k', 'v1']])

    const strict = limited(100, BufferConfig.maxRecords(1).shutDownWhenFull())
    strict.harness.pipe(strict.node, 'k', 'v1', 0)
    expect(
      isStreamsError(
        caught(() => strict.harness.pipe(strict.node, 'j', 'w1', 1)),
        'RUNTIME',
      ),
    ).toBe(true)
  })

  it('forwards tombstones (a delete is a result when not waiting for a window to close)', () => {
    const { harness, node } = limited(0, unbounded())
    harness.pipe(node, 'k', null, 3)
    expect(node.output.map((r) => [r.key, r.value])).toEqual([['k', null]])
  })

  it('rejects bad limits and bounds with StreamsError CONFIG', () => {
    for (const make of [
      () => untilTimeLimit(-1, unbounded()),
      () => maxRecords(0),
      () => maxBytes(1.5),
      () => untilTimeLimit(5, {} as BufferConfig),
    ]) {
      expect(isStreamsError(caught(make), 'CONFIG')).toBe(true)
    }
  })
})
