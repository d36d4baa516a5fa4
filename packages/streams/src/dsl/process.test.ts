import { afterEach, describe, expect, it } from 'vitest'
import type { Processor, ProcessorContext } from '../api/processor.js'
import type { RecordMetadata } from '../api/record.js'
import { TopologyTestDriver } from '../driver/topology-test-driver.js'
import { isStreamsError } from '../errors.js'
import { Serdes } from '../serdes/serdes.js'
import type { KeyValueStore } from '../state/store-types.js'
import { Stores } from '../state/stores.js'
import { StreamsBuilder } from './streams-builder.js'

const str = Serdes.string()
const long = Serdes.long()
const drivers: TopologyTestDriver[] = []
afterEach(() => {
  for (const d of drivers.splice(0)) d.close()
})

/** Sums values per key in a store; emits all sums on each punctuation of the given type. */
function summer(
  type: 'stream-time' | 'wall-clock',
  seen: RecordMetadata[],
): () => Processor<string, number, string, number> {
  return () => {
    let context: ProcessorContext<string, number>
    let sums: KeyValueStore<string, number>
    return {
      init(c) {
        context = c
        sums = c.getStateStore('sums')
        c.schedule(10, type, (ts) => {
          for (const { key, value } of sums.all()) context.forward({ key, value, timestamp: ts, headers: [] })
        })
      },
      process(record) {
        const md = context.recordMetadata()
        if (md !== undefined) seen.push(md)
        const key = record.key as string
        sums.put(key, (sums.get(key) ?? 0) + (record.value as number))
      },
    }
  }
}

function open(type: 'stream-time' | 'wall-clock', seen: RecordMetadata[] = []) {
  const builder = new StreamsBuilder()
  builder.addStateStore(Stores.inMemoryKeyValueStore('sums', str, long, { caching: false }))
  builder
    .stream('in', { keySerde: str, valueSerde: long })
    .process(summer(type, seen), { stores: ['sums'] })
    .to('out', { keySerde: str, valueSerde: long })
  const driver = new TopologyTestDriver(builder.build(), { applicationId: 'p', initialWallClockMs: 1000 })
  drivers.push(driver)
  return { driver, input: driver.createInputTopic('in', str, long), out: driver.createOutputTopic('out', str, long) }
}

describe('process() and punctuation', () => {
  it('a processor reads and writes its store, and sees the record metadata', () => {
    const seen: RecordMetadata[] = []
    const { driver, input } = open('wall-clock', seen)
    input.pipeInput('a', 2, 1)
    input.pipeInput('a', 3, 2)
    expect(driver.getKeyValueStore<string, number>('sums').get('a')).toBe(5)
    expect(seen).toEqual([
      { topic: 'in', partition: 0, offset: 0n },
      { topic: 'in', partition: 0, offset: 1n },
    ])
    expect(driver.changelogRecords('sums')).toHaveLength(2)
  })

  it('stream-time punctuation fires as record time passes each interval, once per jump, on the grid', () => {
    const { input, out } = open('stream-time')
    input.pipeInput('a', 1, 5)
    // Fires at the first record (the grid starts at 0).
    expect(out.readRecordsToList().map((r) => [r.key, r.value, r.timestamp])).toEqual([['a', 1, 5]])
    input.pipeInput('a', 1, 9)
    expect(out.isEmpty()).toBe(true)
    input.pipeInput('b', 1, 10)
    expect(out.readRecordsToList().map((r) => [r.key, r.value, r.timestamp])).toEqual([
      ['a', 2, 10],
      ['b', 1, 10],
    ])
    // A late record does not move stream time back or fire.
    input.pipeInput('a', 1, 3)
    expect(out.isEmpty()).toBe(true)
    // A jump over several intervals fires once.
    input.pipeInput('a', 1, 47)
    expect(out.readRecordsToList().map((r) => r.timestamp)).toEqual([47, 47])
    input.pipeInput('a', 1, 49)
    expect(out.isEmpty()).toBe(true)
    input.pipeInput('a', 1, 50)
    expect(out.getQueueSize()).toBe(2)
  })

  it('wall-clock punctuation fires on the virtual clock only, not on records', () => {
    const { driver, input, out } = open('wall-clock')
    input.pipeInput('a', 1, 99_999)
    expect(out.isEmpty()).toBe(true)
    driver.advanceWallClockTime(9)
    expect(out.isEmpty()).toBe(true)
    driver.advanceWallClockTime(1)
    expect(out.readRecordsToList().map((r) => [r.key, r.value, r.timestamp])).toEqual([['a', 1, 1010]])
    driver.advanceWallClockTime(35)
    expect(out.readRecordsToList().map((r) => r.timestamp)).toEqual([1045])
    driver.advanceWallClockTime(4)
    expect(out.isEmpty()).toBe(true)
    driver.advanceWallClockTime(1)
    expect(out.getQueueSize()).toBe(1)
  })

  it('a processor that asks for a store it was not connected to gets TOPOLOGY naming both', () => {
    const builder = new StreamsBuilder()
    builder.addStateStore(Stores.inMemoryKeyValueStore('s', str, str))
    builder.stream('in', { keySerde: str, valueSerde: str }).process(() => ({
      init(c) {
        c.getStateStore('s')
      },
      process() {},
    }))
    let error: unknown
    try {
      new TopologyTestDriver(builder.build())
    } catch (e) {
      error = e
    }
    expect(isStreamsError(error, 'TOPOLOGY')).toBe(true)
    expect((error as Error).message).toMatch(/KSTREAM-PROCESSOR-\d+: not connected to state store 's'/)
  })

  it('naming a store that was never added fails at build time', () => {
    const builder = new StreamsBuilder()
    builder.stream('in', { keySerde: str, valueSerde: str }).process(() => ({ process() {} }), { stores: ['ghost'] })
    expect(() => builder.build()).toThrowError(/state store 'ghost' was never added/)
  })

  it('an error thrown by a processor becomes a TASK error that says where, keeping its cause', () => {
    const builder = new StreamsBuilder()
    builder.stream('in', { keySerde: str, valueSerde: str }).foreach(() => {
      throw new Error('boom')
    })
    const driver = new TopologyTestDriver(builder.build())
    drivers.push(driver)
    let error: unknown
    try {
      driver.createInputTopic('in', str, str).pipeInput('k', 'v', 1)
    } catch (e) {
      error = e
    }
    expect(isStreamsError(error, 'TASK')).toBe(true)
    expect((error as Error).message).toMatch(/task 0_0 failed processing a record of in-0 at offset 0: boom/)
  })

  it('a bad punctuation interval is a CONFIG error', () => {
    const builder = new StreamsBuilder()
    builder.stream('in', { keySerde: str, valueSerde: str }).process(() => ({
      init(c) {
        c.schedule(0, 'stream-time', () => {})
      },
      process() {},
    }))
    expect(() => new TopologyTestDriver(builder.build())).toThrowError(
      /punctuation interval must be a positive integer/,
    )
  })
})
