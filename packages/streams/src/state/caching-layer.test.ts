import { describe, expect, it } from 'vitest'
import { numberSerde, stringSerde, testContext } from './__fixtures__/store-test-kit.js'
import { CachingLayer } from './caching-layer.js'
import { ChangeLoggingLayer } from './change-logging-layer.js'
import { InMemoryBytesEngine } from './in-memory-engine.js'
import type { ChangelogRecord, FlushedEntry } from './store-types.js'
import { Stores } from './stores.js'

const s = (text: string): Buffer => Buffer.from(text)

function stack(maxBytes = 1024 * 1024) {
  const logged: ChangelogRecord[] = []
  const engine = new InMemoryBytesEngine()
  const cache = new CachingLayer(new ChangeLoggingLayer(engine, { send: (r) => logged.push(r) }), maxBytes)
  return { logged, engine, cache }
}

describe('change logging and the write cache', () => {
  it('1,000 writes to one key between flushes give one changelog record, with the newest value', () => {
    const { store, context } = (() => {
      const built = Stores.inMemoryKeyValueStore('counts', stringSerde, numberSerde).build()
      const ctx = testContext()
      built.init(ctx)
      return { store: built, context: ctx }
    })()
    for (let i = 1; i <= 1000; i++) {
      context.recordTime = 5000 + i
      store.put('word', i)
    }
    expect(context.logged).toHaveLength(0)
    expect(store.get('word')).toBe(1000)
    store.flush()
    expect(context.logged).toHaveLength(1)
    expect(context.logged[0]).toEqual({ key: s('word'), value: numberSerde.serialize(1000, ''), timestamp: 6000 })
    store.flush()
    expect(context.logged).toHaveLength(1)
  })

  it('without caching every write is logged; a delete is logged as a null value', () => {
    const store = Stores.inMemoryKeyValueStore('kv', stringSerde, numberSerde).withCachingDisabled().build()
    const context = testContext()
    store.init(context)
    context.streamTime = 42
    store.put('a', 1)
    store.put('a', 2)
    store.delete('a')
    expect(
      context.logged.map((r) => [
        r.key.toString(),
        r.value === null ? null : numberSerde.deserialize(r.value, ''),
        r.timestamp,
      ]),
    ).toEqual([
      ['a', 1, 42],
      ['a', 2, 42],
      ['a', null, 42],
    ])
  })

  it('without logging nothing is sent; without a changelog in the context nothing is sent either', () => {
    const quiet = Stores.inMemoryKeyValueStore('kv', stringSerde, numberSerde, {
      logging: false,
      caching: false,
    }).build()
    const context = testContext()
    quiet.init(context)
    quiet.put('a', 1)
    expect(context.logged).toHaveLength(0)
    const standby = Stores.inMemoryKeyValueStore('kv', stringSerde, numberSerde).withCachingDisabled().build()
    standby.init(testContext('/unused', false))
    standby.put('a', 1)
    expect(standby.get('a')).toBe(1)
  })

  it('restoreBatch applies records (puts and deletes) without logging them', () => {
    const store = Stores.inMemoryKeyValueStore('kv', stringSerde, numberSerde).build()
    const context = testContext()
    store.init(context)
    store.restoreBatch([
      { key: s('a'), value: numberSerde.serialize(1, ''), timestamp: 1 },
      { key: s('b'), value: numberSerde.serialize(2, ''), timestamp: 2 },
      { key: s('a'), value: null, timestamp: 3 },
    ])
    store.flush()
    expect(context.logged).toHaveLength(0)
    expect([...store.all()]).toEqual([{ key: 'b', value: 2 }])
  })

  it('reads see cached writes and deletes over what is below; ranges merge both in order', () => {
    const { cache, engine } = stack()
    engine.put(s('a'), s('1'))
    engine.put(s('c'), s('3'))
    engine.put(s('e'), s('5'))
    cache.put(s('b'), s('2'), 0)
    cache.put(s('c'), s('33'), 0)
    cache.put(s('e'), null, 0)
    expect(cache.get(s('e'))).toBeUndefined()
    expect(cache.get(s('c'))).toEqual(s('33'))
    expect([...cache.range()].map(([k, v]) => `${k}=${v}`)).toEqual(['a=1', 'b=2', 'c=33'])
    expect([...cache.range(s('b'), s('e'))].map(([k, v]) => `${k}=${v}`)).toEqual(['b=2', 'c=33'])
  })

  it('evicts the least recently written entries past its byte bound, logging them', () => {
    const { cache, logged, engine } = stack(3 * (64 + 2))
    cache.put(s('a'), s('1'), 1)
    cache.put(s('b'), s('2'), 2)
    cache.put(s('a'), s('9'), 3) // a is now the most recent write
    cache.put(s('c'), s('3'), 4)
    expect(logged).toHaveLength(0)
    cache.put(s('d'), s('4'), 5) // over the bound: b goes first
    expect(logged.map((r) => r.key.toString())).toEqual(['b'])
    expect(engine.get(s('b'))).toEqual(s('2'))
    expect(cache.sizeBytes).toBeLessThanOrEqual(cache.maxBytes)
    cache.flush()
    expect(logged.map((r) => `${r.key}=${r.value}@${r.timestamp}`)).toEqual(['b=2@2', 'a=9@3', 'c=3@4', 'd=4@5'])
  })

  it('a cache of 0 bytes writes every put straight through', () => {
    const { cache, logged } = stack(0)
    cache.put(s('a'), s('1'), 1)
    cache.put(s('a'), s('2'), 2)
    expect(logged).toHaveLength(2)
  })

  it('tells the flush listener each flushed key with its new and old value (typed)', () => {
    const store = Stores.inMemoryKeyValueStore('kv', stringSerde, numberSerde).build()
    const context = testContext()
    store.init(context)
    const flushed: FlushedEntry<string, number>[][] = []
    expect(store.setFlushListener?.((entries) => flushed.push([...entries]))).toBe(true)
    store.put('a', 1)
    store.flush()
    store.put('a', 2)
    store.put('a', 3)
    store.put('b', 7)
    store.delete('b')
    store.flush()
    expect(flushed).toEqual([
      [{ key: 'a', newValue: 1, oldValue: null, timestamp: 0 }],
      [
        { key: 'a', newValue: 3, oldValue: 1, timestamp: 0 },
        { key: 'b', newValue: null, oldValue: null, timestamp: 0 },
      ],
    ])
    const uncached = Stores.inMemoryKeyValueStore('kv', stringSerde, numberSerde).withCachingDisabled().build()
    expect(uncached.setFlushListener?.(() => {})).toBe(false)
  })

  it('the listener may write to the store while a flush forwards (the writes land in a fresh cache)', () => {
    const store = Stores.inMemoryKeyValueStore('kv', stringSerde, numberSerde).build()
    const context = testContext()
    store.init(context)
    store.setFlushListener?.((entries) => {
      for (const entry of entries) if (entry.key === 'a') store.put('echo', entry.newValue ?? 0)
    })
    store.put('a', 5)
    store.flush()
    expect(store.get('echo')).toBe(5)
    expect(context.logged.map((r) => r.key.toString())).toEqual(['a'])
    store.flush()
    expect(context.logged.map((r) => r.key.toString())).toEqual(['a', 'echo'])
  })
})
