import { afterEach, describe, expect, it } from 'vitest'
import { TopologyTestDriver } from '../driver/topology-test-driver.js'
import { Serdes } from '../serdes/serdes.js'
import type { KStream } from './dsl-types.js'
import { StreamsBuilder } from './streams-builder.js'

const str = Serdes.string()
const drivers: TopologyTestDriver[] = []
afterEach(() => {
  for (const d of drivers.splice(0)) d.close()
})

/** A topology reading 'in' (string, string), shaped by `shape`, run in a fresh driver. */
function run(shape: (s: KStream<string, string>, b: StreamsBuilder) => void) {
  const builder = new StreamsBuilder()
  shape(builder.stream('in', { keySerde: str, valueSerde: str }), builder)
  const driver = new TopologyTestDriver(builder.build(), { applicationId: 'app' })
  drivers.push(driver)
  return { driver, input: driver.createInputTopic('in', str, str) }
}

describe('KStream stateless operators', () => {
  it('filter keeps matching records and filterNot the others', () => {
    const { driver, input } = run((s) => {
      s.filter((_k, v) => v.startsWith('a')).to('kept')
      s.filterNot((_k, v) => v.startsWith('a')).to('dropped')
    })
    input.pipeInput('1', 'apple', 10)
    input.pipeInput('2', 'banana', 11)
    expect(driver.createOutputTopic('kept', str, str).readKeyValuesToList()).toEqual([{ key: '1', value: 'apple' }])
    expect(driver.createOutputTopic('dropped', str, str).readKeyValuesToList()).toEqual([{ key: '2', value: 'banana' }])
  })

  it('map changes key and value; mapValues only the value, with the key readable', () => {
    const { driver, input } = run((s) => {
      s.map((k, v) => ({ key: v, value: Number(k) * 2 })).to('mapped', { keySerde: str, valueSerde: Serdes.int32() })
      s.mapValues((v, k) => `${k}:${v.length}`).to('lengths', { valueSerde: str })
    })
    input.pipeInput('3', 'abc', 5)
    const mapped = driver.createOutputTopic('mapped', str, Serdes.int32()).readRecord()
    expect(mapped).toMatchObject({ key: 'abc', value: 6, timestamp: 5 })
    expect(driver.createOutputTopic('lengths', str, str).readKeyValue()).toEqual({ key: '3', value: '3:3' })
  })

  it('flatMap and flatMapValues emit zero or more records per input, in order', () => {
    const { driver, input } = run((s) => {
      s.flatMapValues((v) => v.split(' ').filter((w) => w.length > 0)).to('words', { valueSerde: str })
      s.flatMap((k, v) => [...v].map((c, i) => ({ key: `${k}${i}`, value: c }))).to('chars', {
        keySerde: str,
        valueSerde: str,
      })
    })
    input.pipeInput('k', 'to be', 1)
    input.pipeInput('e', '', 2)
    expect(driver.createOutputTopic('words', str, str).readKeyValuesToList()).toEqual([
      { key: 'k', value: 'to' },
      { key: 'k', value: 'be' },
    ])
    const chars = driver.createOutputTopic('chars', str, str).readKeyValuesToList()
    expect(chars.map((r) => `${r.key}=${r.value}`)).toEqual(['k0=t', 'k1=o', 'k2= ', 'k3=b', 'k4=e'])
  })

  it('selectKey replaces the key and keeps the value', () => {
    const { driver, input } = run((s) => {
      s.selectKey((_k, v) => v.toUpperCase()).to('rekeyed', { keySerde: str })
    })
    input.pipeInput('old', 'new', 1)
    expect(driver.createOutputTopic('rekeyed', str, str).readKeyValue()).toEqual({ key: 'NEW', value: 'new' })
  })

  it('peek sees every record and passes it on; foreach is terminal', () => {
    const peeked: string[] = []
    const each: string[] = []
    const { driver, input } = run((s) => {
      s.peek((k, v) => peeked.push(`${k}=${v}`)).to('out')
      s.foreach((k) => each.push(k))
    })
    input.pipeInput('a', '1', 1)
    input.pipeInput('b', '2', 2)
    expect(peeked).toEqual(['a=1', 'b=2'])
    expect(each).toEqual(['a', 'b'])
    expect(driver.createOutputTopic('out', str, str).getQueueSize()).toBe(2)
  })

  it('split sends each record to the first matching branch, the rest to the default branch', () => {
    const { driver, input } = run((s) => {
      const branches = s
        .split({ name: 'by-size-' })
        .branch((_k, v) => v.length < 3, { name: 'small' })
        .branch((_k, v) => v.length < 6, { name: 'medium' })
        .defaultBranch({ name: 'large' })
      branches.small.to('small')
      branches.medium.to('medium')
      branches.large.to('large')
    })
    for (const [i, v] of ['ab', 'abcd', 'abcdefgh', 'a'].entries()) input.pipeInput(String(i), v, i)
    const values = (t: string) =>
      driver
        .createOutputTopic(t, str, str)
        .readKeyValuesToList()
        .map((r) => r.value)
    expect(values('small')).toEqual(['ab', 'a'])
    expect(values('medium')).toEqual(['abcd'])
    expect(values('large')).toEqual(['abcdefgh'])
  })

  it('split without a default branch drops what matches no branch', () => {
    const { driver, input } = run((s) => {
      const b = s
        .split()
        .branch((_k, v) => v === 'x', { name: 'x' })
        .noDefaultBranch()
      b.x.to('x')
    })
    input.pipeInput('1', 'x', 1)
    input.pipeInput('2', 'y', 2)
    expect(driver.createOutputTopic('x', str, str).readKeyValuesToList()).toEqual([{ key: '1', value: 'x' }])
  })

  it('merge interleaves two streams in processing order', () => {
    const builder = new StreamsBuilder()
    const a = builder.stream('a', { keySerde: str, valueSerde: str })
    const b = builder.stream('b', { keySerde: str, valueSerde: str })
    a.merge(b).to('merged')
    const driver = new TopologyTestDriver(builder.build())
    drivers.push(driver)
    driver.createInputTopic('a', str, str).pipeInput('1', 'from-a', 1)
    driver.createInputTopic('b', str, str).pipeInput('2', 'from-b', 2)
    driver.createInputTopic('a', str, str).pipeInput('3', 'from-a-again', 3)
    const out = driver.createOutputTopic('merged', str, str).readKeyValuesToList()
    expect(out.map((r) => r.value)).toEqual(['from-a', 'from-b', 'from-a-again'])
  })

  it('to() with a function chooses the topic per record', () => {
    const { driver, input } = run((s) => s.to((r) => `topic-${r.key}`))
    input.pipeInput('x', '1', 1)
    input.pipeInput('y', '2', 2)
    expect(driver.createOutputTopic('topic-x', str, str).readValue()).toBe('1')
    expect(driver.createOutputTopic('topic-y', str, str).readValue()).toBe('2')
  })

  it('to() keeps timestamps and headers, and a tombstone stays a null value', () => {
    const { driver, input } = run((s) => s.to('out'))
    input.pipeInput('k', null, 77, [{ key: 'h', value: Buffer.from('v') }])
    const r = driver.createOutputTopic('out', str, str).readRecord()
    expect(r).toEqual({ key: 'k', value: null, timestamp: 77, headers: [{ key: 'h', value: Buffer.from('v') }] })
  })

  it('repartition writes through <app>-<name>-repartition and reads it back in a new sub-topology', () => {
    const builder = new StreamsBuilder()
    builder
      .stream('in', { keySerde: str, valueSerde: str })
      .selectKey((_k, v) => v)
      .repartition({ name: 'by-value', keySerde: str, partitions: 4 })
      .mapValues((v) => v.length)
      .to('out', { valueSerde: Serdes.int32() })
    const topology = builder.build()
    expect(topology.describe().subtopologies).toHaveLength(2)
    const driver = new TopologyTestDriver(topology, { applicationId: 'app' })
    drivers.push(driver)
    driver.createInputTopic('in', str, str).pipeInput('k', 'hello', 3)
    expect(driver.createOutputTopic('app-by-value-repartition', str, str).readKeyValue()).toEqual({
      key: 'hello',
      value: 'hello',
    })
    expect(driver.createOutputTopic('out', str, Serdes.int32()).readRecord()).toMatchObject({
      key: 'hello',
      value: 5,
      timestamp: 3,
    })
    const repartition = driver.plan.internalTopics.find((t) => t.name === 'app-by-value-repartition')
    expect(repartition).toMatchObject({ kind: 'repartition', partitions: 4 })
  })

  it('an operator that lost the serdes asks for them by name', () => {
    const builder = new StreamsBuilder()
    const mapped = builder.stream('in', { keySerde: str, valueSerde: str }).map((k, v) => ({ key: k, value: v }))
    expect(() => mapped.to('out')).toThrowError(/to\('out'\) needs a keySerde/)
  })

  it('a serde that cannot read an input record fails by default and is skipped when asked', () => {
    const builder = new StreamsBuilder()
    builder.stream('in', { keySerde: str, valueSerde: Serdes.int32() }).to('out')
    const failing = new TopologyTestDriver(builder.build())
    drivers.push(failing)
    const raw = failing.createInputTopic('in', str, Serdes.bytes())
    expect(() => raw.pipeInput('k', Buffer.from([1]), 1)).toThrowError(/int32/)
    const skipping = new TopologyTestDriver(builder.build(), { onDeserializationError: 'skip' })
    drivers.push(skipping)
    skipping.createInputTopic('in', str, Serdes.bytes()).pipeInput('k', Buffer.from([1]), 1)
    skipping.createInputTopic('in', str, Serdes.int32()).pipeInput('k', 7, 2)
    expect(skipping.metricsOf('in')).toMatchObject({ skipped: 1, processed: 1 })
    expect(skipping.createOutputTopic('out', str, Serdes.int32()).readValue()).toBe(7)
  })

  it('a timestamp extractor sets event time; a negative time skips the record', () => {
    const builder = new StreamsBuilder()
    builder
      .stream('in', {
        keySerde: str,
        valueSerde: Serdes.json<{ at: number }>(),
        timestampExtractor: (r) => r.value?.at ?? -1,
      })
      .to('out')
    const driver = new TopologyTestDriver(builder.build())
    drivers.push(driver)
    const input = driver.createInputTopic('in', str, Serdes.json<{ at: number }>())
    input.pipeInput('k', { at: 1234 }, 1)
    input.pipeInput('k', { at: -5 }, 2)
    const out = driver.createOutputTopic('out', str, Serdes.json<{ at: number }>()).readRecordsToList()
    expect(out.map((r) => r.timestamp)).toEqual([1234])
    expect(driver.metricsOf('in').skipped).toBe(1)
  })
})
