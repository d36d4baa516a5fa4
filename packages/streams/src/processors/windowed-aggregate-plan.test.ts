import { describe, expect, it } from 'vitest'
import type { Windowed } from '../api/record.js'
import { isStreamsError } from '../errors.js'
import { SessionWindows } from '../windows/session-windows.js'
import { SlidingWindows } from '../windows/sliding-windows.js'
import { TimeWindows } from '../windows/time-windows.js'
import { ProcessorHarness } from './__fixtures__/processor-harness.js'
import { jsonSerde, stringSerde } from './__fixtures__/serdes.js'
import { untilTimeLimit, untilWindowCloses, unbounded } from './suppressed.js'
import { type AnyWindows, suppressPlan, windowedAggregatePlan } from './windowed-aggregate-plan.js'
import { aggregateAggregation, countAggregation } from './window-aggregation.js'

function countPlan(windows: AnyWindows, retentionMs?: number) {
  return windowedAggregatePlan({
    storeName: 'counts',
    windows,
    aggregation: countAggregation<string, string>(),
    keySerde: stringSerde,
    valueSerde: stringSerde,
    aggregateSerde: jsonSerde<number>(),
    retentionMs,
  })
}

function caught(fn: () => unknown): unknown {
  try {
    fn()
  } catch (e) {
    return e
  }
  return undefined
}

describe('windowedAggregatePlan', () => {
  it('describes the stores of each kind with the user-given names and default retention', () => {
    const time = countPlan(TimeWindows.ofSizeAndGrace(60_000, 10_000))
    expect(time.stores.map((s) => [s.name, s.kind, s.retentionMs, s.logging])).toEqual([
      ['counts', 'window', 70_000, true],
    ])
    const sliding = countPlan(SlidingWindows.ofTimeDifferenceAndGrace(1_000, 500))
    expect(sliding.stores.map((s) => [s.name, s.kind, s.retentionMs])).toEqual([
      ['counts', 'window', 1_500],
      ['counts-sliding-records', 'window', 1_501],
    ])
    const session = countPlan(SessionWindows.ofInactivityGapAndGrace(300, 100), 10_000)
    expect(session.stores.map((s) => [s.name, s.kind, s.retentionMs])).toEqual([['counts', 'session', 10_000]])
  })

  it('builds processors that run against the stores it describes, through suppress', () => {
    for (const windows of [
      TimeWindows.ofSizeWithNoGrace(10),
      SlidingWindows.ofTimeDifferenceWithNoGrace(10),
      SessionWindows.ofInactivityGapWithNoGrace(10),
    ]) {
      const plan = countPlan(windows)
      const suppress = suppressPlan<Windowed<string>, number>('final', untilWindowCloses(unbounded()), plan)
      const harness = new ProcessorHarness()
      for (const builder of plan.stores) harness.addStore(builder.build())
      const suppressNode = harness.node(suppress.supplier())
      const node = harness.node(plan.supplier(), [suppressNode])
      harness.pipe(node, 'k', 'a', 1)
      harness.pipe(node, 'k', 'b', 2)
      harness.pipe(node, 'j', 'c', 100)
      expect(suppressNode.output.length, windows.constructor.name).toBeGreaterThan(0)
      expect(suppressNode.output.every((r) => r.key!.key === 'k')).toBe(true)
      expect(suppress.connectedStores).toEqual(['counts'])
    }
  })

  it('fails when the topology is written: short retention, a session aggregate without merger, suppress without windows', () => {
    expect(
      isStreamsError(
        caught(() => countPlan(TimeWindows.ofSizeAndGrace(10, 5), 12)),
        'CONFIG',
      ),
    ).toBe(true)
    const noMerger = () =>
      windowedAggregatePlan({
        storeName: 'agg',
        windows: SessionWindows.ofInactivityGapWithNoGrace(5),
        aggregation: aggregateAggregation<string, string, number>(
          () => 0,
          (_k, _v, n) => n + 1,
        ),
        keySerde: stringSerde,
        valueSerde: stringSerde,
        aggregateSerde: jsonSerde<number>(),
      })
    expect(isStreamsError(caught(noMerger), 'TOPOLOGY')).toBe(true)
    expect(
      isStreamsError(
        caught(() => suppressPlan('s', untilWindowCloses(unbounded()))),
        'TOPOLOGY',
      ),
    ).toBe(true)
    expect(suppressPlan('s', untilTimeLimit(5, unbounded())).connectedStores).toEqual([])
  })
})
