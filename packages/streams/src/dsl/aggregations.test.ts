import { afterEach, describe, expect, it } from 'vitest'
import { TopologyTestDriver } from '../driver/topology-test-driver.js'
import { isStreamsError } from '../errors.js'
import { Serdes } from '../serdes/serdes.js'
import type { KeyValueStore } from '../state/store-types.js'
import { StreamsBuilder } from './streams-builder.js'

const str = Serdes.string()
const long = Serdes.long()
const drivers: TopologyTestDriver[] = []
afterEach(() => {
  for (const d of drivers.splice(0)) d.close()
})

function open(builder: StreamsBuilder): TopologyTestDriver {
  const driver = new TopologyTestDriver(builder.build(), { applicationId: 'wc' })
  drivers.push(driver)
  return driver
}

describe('grouped stream aggregations', () => {
  it('word count: flatMapValues, groupBy through a named repartition topic, count into a named store', () => {
    const builder = new StreamsBuilder()
    builder
      .stream('lines', { keySerde: str, valueSerde: str })
      .flatMapValues((line) => line.toLowerCase().split(/\W+/).filter(Boolean))
      .groupBy((_k, word) => word, { name: 'words', keySerde: str, valueSerde: str })
      .count({ name: 'counts' })
      .toStream()
      .to('word-counts', { valueSerde: long })
    const driver = open(builder)
    const lines = driver.createInputTopic('lines', str, str)
    lines.pipeInput(null, 'the cat and the hat', 1)
    lines.pipeInput(null, 'The end', 2)
    const counts = driver.createOutputTopic('word-counts', str, long).readKeyValuesToMap()
    expect(Object.fromEntries(counts)).toEqual({ the: 3, cat: 1, and: 1, hat: 1, end: 1 })
    const store = driver.getKeyValueStore<string, number>('counts')
    expect(store.get('the')).toBe(3)
    expect([...store.all()].map((kv) => kv.key)).toEqual(['and', 'cat', 'end', 'hat', 'the'])
    expect(driver.plan.internalTopics.map((t) => t.name).sort()).toEqual([
      'wc-counts-changelog',
      'wc-words-repartition',
    ])
  })

  it('with caching, one input record updating a key twice forwards the newest value once per commit', () => {
    const builder = new StreamsBuilder()
    builder
      .stream('in', { keySerde: str, valueSerde: str })
      .flatMapValues((v) => v.split(','))
      .groupByKey()
      .count({ name: 'c' })
      .toStream()
      .to('out')
    const driver = open(builder)
    driver.createInputTopic('in', str, str).pipeInput('k', 'a,b,c', 1)
    expect(driver.createOutputTopic('out', str, long).readKeyValuesToList()).toEqual([{ key: 'k', value: 3 }])
    // The changelog got the flushed value only.
    const changelog = driver.changelogRecords('c')
    expect(changelog).toHaveLength(1)
    expect(long.deserialize(changelog[0]?.value as Buffer, 't')).toBe(3)
  })

  it('without caching every update goes downstream and to the changelog', () => {
    const builder = new StreamsBuilder()
    builder
      .stream('in', { keySerde: str, valueSerde: str })
      .flatMapValues((v) => v.split(','))
      .groupByKey()
      .count({ name: 'c', caching: false })
      .toStream()
      .to('out')
    const driver = open(builder)
    driver.createInputTopic('in', str, str).pipeInput('k', 'a,b,c', 1)
    expect(
      driver
        .createOutputTopic('out', str, long)
        .readKeyValuesToList()
        .map((r) => r.value),
    ).toEqual([1, 2, 3])
    expect(driver.changelogRecords('c')).toHaveLength(3)
    const cl = driver.createOutputTopic('wc-c-changelog', str, long).readRecordsToList()
    expect(cl.map((r) => r.value)).toEqual([1, 2, 3])
  })

  it('a store with logging disabled writes no changelog and plans none', () => {
    const builder = new StreamsBuilder()
    builder.stream('in', { keySerde: str, valueSerde: str }).groupByKey().count({ name: 'c', logging: false })
    const driver = open(builder)
    driver.createInputTopic('in', str, str).pipeInput('k', 'v', 1)
    expect(driver.getKeyValueStore<string, number>('c').get('k')).toBe(1)
    expect(driver.changelogRecords('c')).toEqual([])
    expect(driver.plan.internalTopics).toEqual([])
  })

  it('reduce combines values per key, starting from the first value', () => {
    const builder = new StreamsBuilder()
    builder
      .stream('in', { keySerde: str, valueSerde: Serdes.int32() })
      .groupByKey()
      .reduce((a, b) => Math.max(a, b), { name: 'max' })
      .toStream()
      .to('out')
    const driver = open(builder)
    const input = driver.createInputTopic('in', str, Serdes.int32())
    for (const [k, v] of [
      ['a', 3],
      ['b', -4],
      ['a', 1],
      ['a', 9],
      ['b', -7],
    ] as const)
      input.pipeInput(k, v, 1)
    const out = driver.createOutputTopic('out', str, Serdes.int32()).readKeyValuesToList()
    expect(out).toEqual([
      { key: 'a', value: 3 },
      { key: 'b', value: -4 },
      { key: 'a', value: 3 },
      { key: 'a', value: 9 },
      { key: 'b', value: -4 },
    ])
    expect(driver.getKeyValueStore<string, number>('max').get('b')).toBe(-4)
  })

  it('aggregate folds values into an aggregate of another type with its own serde', () => {
    const builder = new StreamsBuilder()
    const json = Serdes.json<{ n: number; sum: number }>()
    builder
      .stream('in', { keySerde: str, valueSerde: Serdes.int32() })
      .groupByKey()
      .aggregate(
        () => ({ n: 0, sum: 0 }),
        (_k, v, agg) => ({ n: agg.n + 1, sum: agg.sum + v }),
        { name: 'stats', valueSerde: json },
      )
      .toStream()
      .to('out')
    const driver = open(builder)
    const input = driver.createInputTopic('in', str, Serdes.int32())
    input.pipeInput('x', 10, 1)
    input.pipeInput('x', 5, 2)
    expect(driver.createOutputTopic('out', str, json).readKeyValuesToMap().get('x')).toEqual({ n: 2, sum: 15 })
  })

  it('records with a null key or value are skipped and counted', () => {
    const builder = new StreamsBuilder()
    builder.stream('in', { keySerde: str, valueSerde: str }).groupByKey().count({ name: 'c' })
    const driver = open(builder)
    const input = driver.createInputTopic('in', str, str)
    input.pipeInput(null, 'v', 1)
    input.pipeInput('k', null, 2)
    input.pipeInput('k', 'v', 3)
    expect(driver.metricsOf('in')).toMatchObject({ processed: 3, skipped: 2 })
    expect([...driver.getKeyValueStore<string, number>('c').all()]).toEqual([{ key: 'k', value: 1 }])
  })

  it('groupByKey after a key change repartitions through the name it is given', () => {
    const builder = new StreamsBuilder()
    builder
      .stream('in', { keySerde: str, valueSerde: str })
      .selectKey((_k, v) => v)
      .groupByKey({ name: 'by-value', keySerde: str })
      .count({ name: 'c' })
    const topology = builder.build()
    expect(topology.describe().subtopologies).toHaveLength(2)
    const driver = new TopologyTestDriver(topology, { applicationId: 'wc' })
    drivers.push(driver)
    driver.createInputTopic('in', str, str).pipeInput('1', 'v', 1)
    driver.createInputTopic('in', str, str).pipeInput('2', 'v', 1)
    expect(driver.getKeyValueStore<string, number>('c').get('v')).toBe(2)
    expect(driver.createOutputTopic('wc-by-value-repartition', str, str).getQueueSize()).toBe(2)
  })

  it('a key change before an aggregation without a repartition name throws TOPOLOGY naming the operator', () => {
    const builder = new StreamsBuilder()
    const rekeyed = builder.stream('in', { keySerde: str, valueSerde: str }).map((k, v) => ({ key: v, value: k }))
    let error: unknown
    try {
      rekeyed.groupByKey({ keySerde: str, valueSerde: str })
    } catch (e) {
      error = e
    }
    expect(isStreamsError(error, 'TOPOLOGY')).toBe(true)
    expect((error as Error).message).toMatch(/groupByKey \(after a key change\) needs a repartition topic name/)
    const s = builder.stream('other', { keySerde: str, valueSerde: str })
    expect(() => s.groupBy((_k, v) => v, {} as { name: string })).toThrowError(/groupBy needs a repartition topic name/)
  })

  it('an aggregation without a store name, or with a taken one, throws TOPOLOGY naming the operator', () => {
    const builder = new StreamsBuilder()
    const grouped = builder.stream('in', { keySerde: str, valueSerde: str }).groupByKey()
    expect(() => grouped.count({} as { name: string })).toThrowError(/count needs a state store name/)
    grouped.count({ name: 'c' })
    expect(() => grouped.reduce((a) => a, { name: 'c' })).toThrowError(/reduce .*'c' is already used by count/)
    expect(() =>
      grouped.aggregate(
        () => 0,
        () => 0,
        { name: 'agg' } as never,
      ),
    ).toThrowError(/aggregate needs a valueSerde/)
  })

  it('the store of an aggregation is a key-value store the driver hands out by name', () => {
    const builder = new StreamsBuilder()
    builder.stream('in', { keySerde: str, valueSerde: str }).groupByKey().count({ name: 'c' })
    const driver = open(builder)
    const store: KeyValueStore<string, number> = driver.getKeyValueStore('c')
    expect(store.approximateNumEntries()).toBe(0)
    expect(() => driver.getKeyValueStore('nope')).toThrowError(/no store named 'nope'/)
  })
})
