import { describe, expect, it } from 'vitest'
import { StreamsBuilder } from '../dsl/streams-builder.js'
import { type StreamsError, isStreamsError } from '../errors.js'
import type { SinkRecord } from '../runtime/task-contract.js'
import { Serdes } from '../serdes/serdes.js'
import { Stores } from '../state/stores.js'

const str = Serdes.string()

function topologyError(fn: () => unknown): StreamsError {
  try {
    fn()
  } catch (e) {
    if (isStreamsError(e, 'TOPOLOGY')) return e
    throw e
  }
  throw new Error('expected StreamsError TOPOLOGY')
}

/** Word count: two sub-topologies split at the 'words' repartition topic. */
function wordCount(): StreamsBuilder {
  const builder = new StreamsBuilder()
  builder
    .stream('lines', { keySerde: str, valueSerde: str })
    .flatMapValues((l) => l.split(' '))
    .groupBy((_k, w) => w, { name: 'words', keySerde: str, valueSerde: str })
    .count({ name: 'counts' })
    .toStream()
    .to('word-counts', { valueSerde: Serdes.long() })
  return builder
}

describe('Topology', () => {
  it('describe() lists sub-topologies with their sources, processors, stores and sinks, as text and data', () => {
    const description = wordCount().build().describe()
    expect(description.subtopologies.map((s) => s.id)).toEqual([0, 1])
    const [first, second] = description.subtopologies
    expect(first?.nodes.map((n) => n.type)).toEqual(['source', 'processor', 'processor', 'sink'])
    expect(first?.nodes[0]).toMatchObject({ type: 'source', topics: ['lines'] })
    expect(first?.nodes.at(-1)).toMatchObject({ type: 'sink', topic: 'words-repartition' })
    expect(second?.nodes[0]).toMatchObject({ type: 'source', topics: ['words-repartition'] })
    expect(second?.nodes.find((n) => n.type === 'processor' && n.stores.includes('counts'))).toBeDefined()
    expect(second?.stores).toEqual([
      { name: 'counts', kind: 'key-value', persistent: false, logging: true, caching: true },
    ])
    expect(description.toString()).toBe(
      [
        'Topologies:',
        '   Sub-topology: 0',
        '    Source: KSTREAM-SOURCE-0000000000 (topics: [lines])',
        '      --> KSTREAM-FLATMAPVALUES-0000000001',
        '    Processor: KSTREAM-FLATMAPVALUES-0000000001 (stores: [])',
        '      --> KSTREAM-KEY-SELECT-0000000002',
        '      <-- KSTREAM-SOURCE-0000000000',
        '    Processor: KSTREAM-KEY-SELECT-0000000002 (stores: [])',
        '      --> KSTREAM-SINK-0000000003',
        '      <-- KSTREAM-FLATMAPVALUES-0000000001',
        '    Sink: KSTREAM-SINK-0000000003 (topic: words-repartition)',
        '      <-- KSTREAM-KEY-SELECT-0000000002',
        '   Sub-topology: 1',
        '    Source: KSTREAM-SOURCE-0000000004 (topics: [words-repartition])',
        '      --> KSTREAM-COUNT-0000000005',
        '    Processor: KSTREAM-COUNT-0000000005 (stores: [counts])',
        '      --> KTABLE-TOSTREAM-0000000006',
        '      <-- KSTREAM-SOURCE-0000000004',
        '    Processor: KTABLE-TOSTREAM-0000000006 (stores: [])',
        '      --> KSTREAM-SINK-0000000007',
        '      <-- KSTREAM-COUNT-0000000005',
        '    Sink: KSTREAM-SINK-0000000007 (topic: word-counts)',
        '      <-- KTABLE-TOSTREAM-0000000006',
        '    Store: counts (key-value, in-memory, logged, cached)',
        '',
      ].join('\n'),
    )
  })

  it('plan() resolves internal topic names for the application and says how to size them', () => {
    const plan = wordCount().build().plan('wc')
    expect(plan.applicationId).toBe('wc')
    expect(plan.subtopologies.map((s) => ({ id: s.id, in: s.sourceTopics, out: s.sinkTopics }))).toEqual([
      { id: 0, in: ['lines'], out: ['wc-words-repartition'] },
      { id: 1, in: ['wc-words-repartition'], out: ['word-counts'] },
    ])
    expect(plan.internalTopics).toEqual([
      { name: 'wc-words-repartition', kind: 'repartition', partitionsLike: 0, configs: { 'cleanup.policy': 'delete' } },
      { name: 'wc-counts-changelog', kind: 'changelog', partitionsLike: 1, configs: { 'cleanup.policy': 'compact' } },
    ])
    expect(plan.subtopologies[1]?.stores.map((s) => s.name)).toEqual(['counts'])
    expect(() => wordCount().build().plan('bad id!')).toThrowError(/application id/)
  })

  it('processors that share a store are one sub-topology, and their source topics a copartition group', () => {
    const builder = new StreamsBuilder()
    builder.addStateStore(Stores.inMemoryKeyValueStore('shared', str, str))
    const p = () => ({ process() {} })
    builder.stream('a', { keySerde: str, valueSerde: str }).process(p, { stores: ['shared'] })
    builder.stream('b', { keySerde: str, valueSerde: str }).process(p, { stores: ['shared'] })
    builder.stream('c', { keySerde: str, valueSerde: str }).to('d')
    const plan = builder.build().plan('app')
    expect(plan.subtopologies.map((s) => s.sourceTopics)).toEqual([['a', 'b'], ['c']])
    expect(plan.subtopologies[0]?.copartitionGroups).toEqual([['a', 'b']])
    expect(plan.subtopologies[1]?.copartitionGroups).toEqual([])
  })

  it('a task made from the plan sends sink records and changelog writes (to its own partition) through the sender', () => {
    const sent: SinkRecord[] = []
    const plan = wordCount().build().plan('wc')
    const deps = {
      applicationId: 'wc',
      stateDir: '/nonexistent/in-memory-stores-only',
      sender: { send: (r: SinkRecord) => sent.push(r) },
      clock: () => 0,
      partitionsOf: () => 6,
    }
    const first = plan.createTask({ subtopology: 0, partition: 2 }, deps)
    expect(() =>
      first.process({ topic: 'lines', partition: 2, offset: 0n, key: null, value: null, timestamp: 0, headers: [] }),
    ).toThrowError(/process\(\) on a task that is created/)
    first.init()
    first.process({
      topic: 'lines',
      partition: 2,
      offset: 7n,
      key: null,
      value: Buffer.from('a b a'),
      timestamp: 40,
      headers: [],
    })
    expect(first.streamTimeMs).toBe(40)
    expect(first.metrics.processed).toBe(1)
    expect(sent.map((r) => [r.topic, r.partition, r.key?.toString()])).toEqual([
      ['wc-words-repartition', undefined, 'a'],
      ['wc-words-repartition', undefined, 'b'],
      ['wc-words-repartition', undefined, 'a'],
    ])
    // Each write names the input record that made it (the runtime stamps repartition records with it).
    expect(sent.map((r) => r.source)).toEqual(Array(3).fill({ topic: 'lines', partition: 2, offset: 7n }))
    expect(() => first.process({ ...sentAsSource(sent[0] as SinkRecord), topic: 'elsewhere' })).toThrowError(
      /not a source/,
    )

    const second = plan.createTask({ subtopology: 1, partition: 2 }, deps)
    second.init()
    sent.length = 0
    second.process({
      topic: 'wc-words-repartition',
      partition: 2,
      offset: 0n,
      key: Buffer.from('a'),
      value: Buffer.from('a'),
      timestamp: 40,
      headers: [],
    })
    second.process({
      topic: 'wc-words-repartition',
      partition: 2,
      offset: 1n,
      key: Buffer.from('a'),
      value: Buffer.from('a'),
      timestamp: 41,
      headers: [],
    })
    // The store caches: nothing leaves before the flush the runtime makes before a commit.
    expect(sent).toEqual([])
    second.flush()
    expect(
      sent.map((r) => [r.topic, r.partition, r.key?.toString(), Serdes.long().deserialize(r.value as Buffer, '')]),
    ).toEqual([
      ['wc-counts-changelog', 2, 'a', 2],
      ['word-counts', undefined, 'a', 2],
    ])
    expect(second.stores.get('counts')?.isOpen).toBe(true)
    second.close()
    expect(second.stores.get('counts')?.isOpen).toBe(false)
    first.close()
    expect(() => plan.createTask({ subtopology: 9, partition: 0 }, deps)).toThrowError(/no sub-topology 9/)
  })
})

function sentAsSource(r: SinkRecord) {
  return {
    topic: r.topic,
    partition: 0,
    offset: 0n,
    key: r.key,
    value: r.value,
    timestamp: r.timestamp,
    headers: r.headers,
  }
}

describe('naming rules', () => {
  it('repartition() without a name, or with a taken one, throws TOPOLOGY naming the operator', () => {
    const builder = new StreamsBuilder()
    const s = builder.stream('in', { keySerde: str, valueSerde: str })
    expect(topologyError(() => s.repartition({} as { name: string })).message).toMatch(
      /repartition needs a repartition topic name/,
    )
    s.repartition({ name: 'r' })
    const e = topologyError(() => s.groupBy((_k, v) => v, { name: 'r', keySerde: str }))
    expect(e.message).toMatch(/groupBy: repartition name 'r' is already used by repartition/)
    expect(e.details).toMatchObject({ operator: 'groupBy', repartition: 'r' })
  })

  it('names that cannot name a topic are refused', () => {
    const builder = new StreamsBuilder()
    const s = builder.stream('in', { keySerde: str, valueSerde: str })
    expect(topologyError(() => s.repartition({ name: 'has space' })).message).toMatch(/\[A-Za-z0-9._-\]/)
    expect(topologyError(() => s.groupByKey().count({ name: 'a/b' })).message).toMatch(
      /count: a state store name 'a\/b'/,
    )
    expect(topologyError(() => builder.stream('bad topic', { keySerde: str, valueSerde: str })).message).toMatch(
      /'bad topic' is not a valid topic name/,
    )
  })

  it('a store added twice, a topic read twice and an empty topology are errors', () => {
    const builder = new StreamsBuilder()
    expect(topologyError(() => builder.build()).message).toMatch(/the topology is empty/)
    builder.addStateStore(Stores.inMemoryKeyValueStore('s', str, str))
    expect(topologyError(() => builder.addStateStore(Stores.inMemoryKeyValueStore('s', str, str))).message).toMatch(
      /addStateStore\('s'\): state store name 's' is already used by addStateStore\('s'\)/,
    )
    builder.stream('in', { keySerde: str, valueSerde: str })
    expect(topologyError(() => builder.stream(['x', 'in'], { keySerde: str, valueSerde: str })).message).toMatch(
      /topic 'in' is already read by KSTREAM-SOURCE-0000000000/,
    )
  })

  it('a store name and a repartition name may be the same (they name different topics)', () => {
    const builder = new StreamsBuilder()
    builder
      .stream('in', { keySerde: str, valueSerde: str })
      .groupBy((_k, v) => v, { name: 'counts', keySerde: str })
      .count({ name: 'counts' })
    const names = builder
      .build()
      .plan('a')
      .internalTopics.map((t) => t.name)
    expect(names).toEqual(['a-counts-repartition', 'a-counts-changelog'])
  })

  it('adding an operator upstream renames no store or internal topic', () => {
    const build = (extra: boolean) => {
      const builder = new StreamsBuilder()
      let s = builder.stream('in', { keySerde: str, valueSerde: str })
      if (extra) s = s.filter(() => true).peek(() => {})
      s.groupBy((_k, v) => v, { name: 'by-v', keySerde: str }).count({ name: 'n' })
      return builder
        .build()
        .plan('app')
        .internalTopics.map((t) => t.name)
    }
    expect(build(true)).toEqual(build(false))
  })
})
