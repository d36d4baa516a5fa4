import { afterEach, describe, expect, it } from 'vitest'
import type { Windowed } from '../api/record.js'
import { TopologyTestDriver } from '../driver/topology-test-driver.js'
import { isStreamsError } from '../errors.js'
import { unbounded, untilWindowCloses } from '../processors/suppressed.js'
import { Serdes } from '../serdes/serdes.js'
import type { WindowStore } from '../state/store-types.js'
import { SessionWindows } from '../windows/session-windows.js'
import { SlidingWindows } from '../windows/sliding-windows.js'
import { TimeWindows } from '../windows/time-windows.js'
import { windowedSerde } from '../windows/windowed-serde.js'
import { StreamsBuilder } from './streams-builder.js'

const MINUTE = 60_000
let driver: TopologyTestDriver | undefined

afterEach(() => {
  driver?.close()
  driver = undefined
})

function pageViewsPerUserPerMinute(): StreamsBuilder {
  const builder = new StreamsBuilder()
  builder
    .stream('page-views', { keySerde: Serdes.string(), valueSerde: Serdes.string() })
    .groupByKey()
    .windowedBy(TimeWindows.ofSizeAndGrace(MINUTE, 10_000))
    .count({ name: 'views-per-minute' })
    .suppress(untilWindowCloses(unbounded()), { name: 'final-views-per-minute' })
    .toStream()
    .to('views-per-user-minute', { valueSerde: Serdes.long() })
  return builder
}

describe('windowedBy and suppress in the DSL (TopologyTestDriver)', () => {
  it('counts page views per user per one-minute window with 10 s grace, one final count per window', () => {
    driver = new TopologyTestDriver(pageViewsPerUserPerMinute().build())
    const views = driver.createInputTopic('page-views', Serdes.string(), Serdes.string())
    const out = driver.createOutputTopic('views-per-user-minute', windowedSerde(Serdes.string()), Serdes.long())
    const row = (r: { key: Windowed<string> | null; value: number | null }) => [
      r.key!.key,
      r.key!.window.start,
      r.value,
    ]

    views.pipeInput('alice', '/home', 1_000)
    views.pipeInput('alice', '/cart', 20_000)
    views.pipeInput('bob', '/home', 59_000)
    views.pipeInput('alice', '/pay', 62_000) // minute 2 starts; minute 1 still open (grace)
    views.pipeInput('bob', '/faq', 58_000) // out of order, inside the grace
    expect(out.readKeyValuesToList()).toEqual([])
    views.pipeInput('carol', '/home', 70_000) // stream time 70 s: minute 1 closes
    expect(out.readKeyValuesToList().map(row)).toEqual([
      ['alice', 0, 2],
      ['bob', 0, 2],
    ])
    views.pipeInput('alice', '/late', 30_000) // minute 1 is closed: dropped, counted
    views.pipeInput('alice', '/again', 119_999)
    expect(out.readKeyValuesToList()).toEqual([])
    views.pipeInput('bob', '/next', 130_000) // minute 2 closes
    expect(out.readKeyValuesToList().map(row)).toEqual([
      ['alice', MINUTE, 2],
      ['carol', MINUTE, 1],
    ])

    expect(driver.metricsOf('page-views')).toMatchObject({ droppedLate: 1, outOfOrder: 1 })
    const store = driver.getStateStore('views-per-minute') as WindowStore<string, number>
    expect(store.fetch('bob', 2 * MINUTE)).toBe(1)
    expect(driver.producedTopicNames()).toContain('views-per-user-minute')
  })

  it('names every store, and refuses suppress(untilWindowCloses) on a table without windows', () => {
    const builder = new StreamsBuilder()
    const grouped = builder.stream('in', { keySerde: Serdes.string(), valueSerde: Serdes.string() }).groupByKey()
    let caught: unknown
    try {
      grouped.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(5)).count({ name: '' })
    } catch (e) {
      caught = e
    }
    expect(isStreamsError(caught, 'TOPOLOGY')).toBe(true)
    caught = undefined
    try {
      grouped.count({ name: 'plain-counts' }).suppress(untilWindowCloses(unbounded()), { name: 'final' })
    } catch (e) {
      caught = e
    }
    expect(isStreamsError(caught, 'TOPOLOGY')).toBe(true)
  })

  it('emits session counts once each session closes, with merges inside', () => {
    const builder = new StreamsBuilder()
    builder
      .stream('clicks', { keySerde: Serdes.string(), valueSerde: Serdes.string() })
      .groupByKey()
      .windowedBy(SessionWindows.ofInactivityGapAndGrace(5_000, 0))
      .count({ name: 'click-sessions' })
      .suppress(untilWindowCloses(unbounded()), { name: 'final-sessions' })
      .toStream()
      .to('sessions-out', { valueSerde: Serdes.long() })
    driver = new TopologyTestDriver(builder.build())
    const clicks = driver.createInputTopic('clicks', Serdes.string(), Serdes.string())
    const out = driver.createOutputTopic('sessions-out', windowedSerde(Serdes.string()), Serdes.long())
    clicks.pipeInput('u', 'a', 0)
    clicks.pipeInput('u', 'b', 4_000)
    clicks.pipeInput('u', 'c', 8_000)
    clicks.pipeInput('v', 'x', 13_000) // [0, 8000] closes at 8000 + 5000 + 1 = 13001
    expect(out.readKeyValuesToList()).toEqual([])
    clicks.pipeInput('v', 'y', 13_001)
    expect(out.readKeyValuesToList().map((r) => [r.key!.key, r.key!.window.start, r.key!.window.end, r.value])).toEqual(
      [['u', 0, 8_000, 3]],
    )
  })

  it('sums amounts over sliding windows through the raw records store it names', () => {
    const builder = new StreamsBuilder()
    builder
      .stream('payments', { keySerde: Serdes.string(), valueSerde: Serdes.long() })
      .groupByKey()
      .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(10_000, 0))
      .reduce((a, b) => a + b, { name: 'spend-10s' })
      .toStream()
      .to('spend', { valueSerde: Serdes.long() })
    const topology = builder.build()
    driver = new TopologyTestDriver(topology)
    const payments = driver.createInputTopic('payments', Serdes.string(), Serdes.long())
    const out = driver.createOutputTopic('spend', windowedSerde(Serdes.string()), Serdes.long())
    payments.pipeInput('u', 5, 20_000)
    payments.pipeInput('u', 7, 25_000)
    payments.pipeInput('u', 1, 40_000)
    expect(out.readKeyValuesToList().map((r) => [r.key!.window.start, r.key!.window.end, r.value])).toEqual([
      [10_000, 20_000, 5],
      [15_000, 25_000, 12],
      [20_001, 30_001, 7],
      [30_000, 40_000, 1],
    ])
    expect(driver.getStateStore('spend-10s-sliding-records').name).toBe('spend-10s-sliding-records')
  })
})
