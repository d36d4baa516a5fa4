import { afterEach, describe, expect, it } from 'vitest'
import { TopologyTestDriver } from '../driver/topology-test-driver.js'
import { Serdes } from '../serdes/serdes.js'
import { StreamsBuilder } from './streams-builder.js'

const str = Serdes.string()
const int = Serdes.int32()
const drivers: TopologyTestDriver[] = []
afterEach(() => {
  for (const d of drivers.splice(0)) d.close()
})

function open(builder: StreamsBuilder): TopologyTestDriver {
  const driver = new TopologyTestDriver(builder.build(), { applicationId: 'tables' })
  drivers.push(driver)
  return driver
}

describe('KTable and GlobalKTable', () => {
  it('table() keeps the newest value per key in its store, and a tombstone deletes the key', () => {
    const builder = new StreamsBuilder()
    builder.table('users', { name: 'users-store', keySerde: str, valueSerde: str }).toStream().to('user-updates')
    const driver = open(builder)
    const users = driver.createInputTopic('users', str, str)
    users.pipeInput('u1', 'ann', 1)
    users.pipeInput('u2', 'bob', 2)
    users.pipeInput('u1', 'anna', 3)
    users.pipeInput('u2', null, 4)
    const store = driver.getKeyValueStore<string, string>('users-store')
    expect([...store.all()]).toEqual([{ key: 'u1', value: 'anna' }])
    const updates = driver.createOutputTopic('user-updates', str, str).readKeyValuesToList()
    expect(updates).toEqual([
      { key: 'u1', value: 'ann' },
      { key: 'u2', value: 'bob' },
      { key: 'u1', value: 'anna' },
      { key: 'u2', value: null },
    ])
    expect(driver.plan.internalTopics).toEqual([
      {
        name: 'tables-users-store-changelog',
        kind: 'changelog',
        partitionsLike: 0,
        configs: { 'cleanup.policy': 'compact' },
      },
    ])
    // The tombstone reached the changelog as a null value.
    expect(driver.changelogRecords('users-store').at(-1)?.value).toBeNull()
  })

  it('table filter turns rows that stop matching into deletes, and is materialized when named', () => {
    const builder = new StreamsBuilder()
    builder
      .table('scores', { name: 'scores', keySerde: str, valueSerde: int })
      .filter((_k, v) => v >= 10, { name: 'high' })
      .toStream()
      .to('high-scores')
    const driver = open(builder)
    const scores = driver.createInputTopic('scores', str, int)
    scores.pipeInput('a', 12, 1)
    scores.pipeInput('b', 3, 2)
    scores.pipeInput('a', 4, 3)
    const out = driver.createOutputTopic('high-scores', str, int).readKeyValuesToList()
    // 'b' never matched, so the materialized (cached) table has nothing to delete and sends nothing.
    expect(out).toEqual([
      { key: 'a', value: 12 },
      { key: 'a', value: null },
    ])
    expect(driver.getKeyValueStore<string, number>('high').approximateNumEntries()).toBe(0)
    scores.pipeInput('c', 50, 4)
    expect(driver.getKeyValueStore<string, number>('high').get('c')).toBe(50)
  })

  it('table filterNot and mapValues pass tombstones through, unmaterialized', () => {
    const builder = new StreamsBuilder()
    builder
      .table('t', { name: 't', keySerde: str, valueSerde: int })
      .filterNot((_k, v) => v === 0)
      .mapValues((v, k) => `${k}=${v * 10}`)
      .toStream()
      .to('out', { valueSerde: str })
    const driver = open(builder)
    const t = driver.createInputTopic('t', str, int)
    t.pipeInput('x', 2, 1)
    t.pipeInput('y', 0, 2)
    t.pipeInput('x', null, 3)
    const out = driver.createOutputTopic('out', str, str).readKeyValuesToList()
    expect(out).toEqual([
      { key: 'x', value: 'x=20' },
      { key: 'y', value: null },
      { key: 'x', value: null },
    ])
  })

  it('a table needs a store name, and two tables cannot share one', () => {
    const builder = new StreamsBuilder()
    expect(() => builder.table('a', { keySerde: str, valueSerde: str } as never)).toThrowError(
      /table\('a'\) needs a state store name/,
    )
    builder.table('b', { name: 's', keySerde: str, valueSerde: str })
    expect(() => builder.table('c', { name: 's', keySerde: str, valueSerde: str })).toThrowError(
      /'s' is already used by table\('b'\)/,
    )
  })

  it('globalTable fills its store from the whole topic, with no changelog and no task', () => {
    const builder = new StreamsBuilder()
    const countries = builder.globalTable('countries', { name: 'countries', keySerde: str, valueSerde: str })
    expect(countries).toEqual({ topic: 'countries', storeName: 'countries' })
    builder.stream('in', { keySerde: str, valueSerde: str }).to('out')
    const driver = open(builder)
    expect(driver.plan.globalStores).toEqual([
      {
        topic: 'countries',
        store: { name: 'countries', kind: 'key-value', persistent: false, logging: false, caching: false },
      },
    ])
    expect(driver.plan.subtopologies.flatMap((s) => s.sourceTopics)).toEqual(['in'])
    const input = driver.createInputTopic('countries', str, str)
    input.pipeInput('fr', 'France', 1)
    input.pipeInput('de', 'Germany', 2)
    input.pipeInput('fr', null, 3)
    expect([...driver.getKeyValueStore<string, string>('countries').all()]).toEqual([{ key: 'de', value: 'Germany' }])
    expect(driver.plan.internalTopics).toEqual([])
  })

  it('a topic read by a global table cannot be read as a stream too', () => {
    const builder = new StreamsBuilder()
    builder.globalTable('g', { name: 'g', keySerde: str, valueSerde: str })
    expect(() => builder.stream('g', { keySerde: str, valueSerde: str })).toThrowError(
      /already read by global table 'g'/,
    )
  })
})
