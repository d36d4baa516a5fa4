import { describe, expect, it } from 'vitest'
import { StreamsError } from '../errors.js'
import { numberSerde, stringSerde, testContext } from './__fixtures__/store-test-kit.js'
import { Stores } from './stores.js'

describe('typed key-value store (in memory)', () => {
  const build = () => {
    const store = Stores.inMemoryKeyValueStore('counts', stringSerde, numberSerde).build()
    const context = testContext()
    store.init(context)
    return { store, context }
  }

  it('gets, puts, deletes and ranges typed values in key-bytes order', () => {
    const { store } = build()
    store.put('b', 2)
    store.put('a', 1)
    store.put('c', 3)
    expect(store.get('a')).toBe(1)
    expect(store.get('zz')).toBeUndefined()
    expect([...store.range('a', 'b')]).toEqual([
      { key: 'a', value: 1 },
      { key: 'b', value: 2 },
    ])
    expect([...store.all()].map((entry) => entry.key)).toEqual(['a', 'b', 'c'])
    expect(store.delete('b')).toBe(2)
    expect(store.delete('b')).toBeUndefined()
    expect(store.putIfAbsent('a', 9)).toBe(1)
    expect(store.putIfAbsent('d', 4)).toBeUndefined()
    expect([...store.all()].map((entry) => entry.key)).toEqual(['a', 'c', 'd'])
    expect(store.approximateNumEntries()).toBeGreaterThanOrEqual(3)
  })

  it('deserializes what it returns (a serde error surfaces from get and range)', () => {
    const failing = {
      ...numberSerde,
      deserialize: () => {
        throw new StreamsError('SERDE', 'bad')
      },
    }
    const store = Stores.inMemoryKeyValueStore('bad', stringSerde, failing).withCachingDisabled().build()
    store.init(testContext())
    store.put('a', 1)
    expect(() => store.get('a')).toThrow(StreamsError)
    expect(() => [...store.all()]).toThrow(StreamsError)
  })

  it('is not usable before init or after close', () => {
    const store = Stores.inMemoryKeyValueStore('s', stringSerde, numberSerde).build()
    expect(store.isOpen).toBe(false)
    expect(() => store.get('a')).toThrow(expect.objectContaining({ code: 'STORE_NOT_OPEN' }))
    store.init(testContext())
    expect(store.isOpen).toBe(true)
    store.close()
    expect(store.isOpen).toBe(false)
    expect(() => store.put('a', 1)).toThrow(expect.objectContaining({ code: 'STORE_NOT_OPEN' }))
  })
})

describe('Stores', () => {
  it('builds specs with logging and caching on by default, switchable', () => {
    const builder = Stores.persistentKeyValueStore('kv', stringSerde, numberSerde)
    expect(builder).toMatchObject({ name: 'kv', kind: 'key-value', persistent: true, logging: true, caching: true })
    const plain = builder.withLoggingDisabled().withCachingDisabled()
    expect(plain).toMatchObject({ logging: false, caching: false })
    expect(builder.logging).toBe(true)
    const byOptions = Stores.inMemoryKeyValueStore('kv', stringSerde, numberSerde, { logging: false, caching: false })
    expect(byOptions).toMatchObject({ persistent: false, logging: false, caching: false })
    const windows = Stores.inMemoryWindowStore('w', stringSerde, numberSerde, { windowSizeMs: 10, retentionMs: 100 })
    expect(windows).toMatchObject({ kind: 'window', retentionMs: 100 })
    const sessions = Stores.persistentSessionStore('s', stringSerde, numberSerde, { retentionMs: 50 })
    expect(sessions).toMatchObject({ kind: 'session', persistent: true, retentionMs: 50 })
  })

  it('rejects a missing, empty or unusable name with StreamsError INVALID_NAME', () => {
    for (const name of ['', '..', 'a/b', 'has space', undefined as unknown as string]) {
      const attempt = () => Stores.inMemoryKeyValueStore(name, stringSerde, numberSerde)
      expect(attempt).toThrow(StreamsError)
      expect(attempt).toThrow(expect.objectContaining({ code: 'INVALID_NAME' }))
    }
  })

  it('rejects window and session configs that cannot work', () => {
    const bad = [
      () => Stores.inMemoryWindowStore('w', stringSerde, numberSerde, { windowSizeMs: 0, retentionMs: 10 }),
      () => Stores.inMemoryWindowStore('w', stringSerde, numberSerde, { windowSizeMs: 10, retentionMs: 5 }),
      () => Stores.inMemorySessionStore('s', stringSerde, numberSerde, { retentionMs: -1 }),
      () => Stores.inMemoryKeyValueStore('k', stringSerde, numberSerde, { cacheMaxBytes: -1 }),
    ]
    for (const attempt of bad) expect(attempt).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }))
  })

  it('builds a fresh instance per call (tasks never share a store)', () => {
    const builder = Stores.inMemoryKeyValueStore('kv', stringSerde, numberSerde)
    const one = builder.build()
    const two = builder.build()
    one.init(testContext())
    two.init(testContext())
    one.put('a', 1)
    expect(two.get('a')).toBeUndefined()
  })
})
