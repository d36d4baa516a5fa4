import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { numberSerde, stringSerde, testContext } from './__fixtures__/store-test-kit.js'
import type { StateStore } from './store-types.js'
import { Stores } from './stores.js'
import { readTime, windowKeyBytes, writeTime } from './windowed-key.js'

const dirs: string[] = []
const open: StateStore[] = []

afterEach(() => {
  for (const store of open.splice(0)) store.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function stateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-window-'))
  dirs.push(dir)
  return dir
}

describe('windowed keys', () => {
  it('times sort as unsigned bytes in numeric order, negatives first, and read back', () => {
    const times = [
      Number.MIN_SAFE_INTEGER,
      -(2 ** 40),
      -1,
      0,
      1,
      2 ** 32 - 1,
      2 ** 32,
      1_700_000_000_000,
      Number.MAX_SAFE_INTEGER,
    ]
    const encoded = times.map((time) => {
      const out = Buffer.alloc(8)
      writeTime(out, 0, time)
      return out
    })
    expect([...encoded].sort(Buffer.compare)).toEqual(encoded)
    expect(encoded.map((bytes) => readTime(bytes, 0))).toEqual(times)
  })
})

for (const persistent of [false, true]) {
  const kind = persistent ? 'persistent' : 'in-memory'
  const builder = (opts: { caching?: boolean } = {}) =>
    (persistent ? Stores.persistentWindowStore : Stores.inMemoryWindowStore)('windows', stringSerde, numberSerde, {
      windowSizeMs: 10,
      retentionMs: 100,
      ...opts,
    })

  describe(`window store (${kind})`, () => {
    const build = (opts: { caching?: boolean } = {}) => {
      const store = builder(opts).build()
      const context = testContext(persistent ? stateDir() : '/unused')
      store.init(context)
      open.push(store)
      return { store, context }
    }

    it('puts and fetches by key and window start; ranges one key, oldest first', () => {
      const { store } = build()
      store.put('a', 1, 0)
      store.put('a', 2, 10)
      store.put('a', 3, 20)
      store.put('ab', 9, 10) // a longer key starting with the same bytes is not 'a'
      store.put('b', 5, 10)
      expect(store.fetch('a', 10)).toBe(2)
      expect(store.fetch('a', 30)).toBeUndefined()
      expect([...store.fetchRange('a', 0, 15)]).toEqual([
        { windowStart: 0, value: 1 },
        { windowStart: 10, value: 2 },
      ])
      expect([...store.fetchRange('a', 25, 10)]).toEqual([])
      // In the order of the stored bytes (key then start): 'ab' before 'a'+time, whose first time byte is >= 0x80.
      expect([...store.fetchAll(10, 10)].map((kv) => [kv.key.key, kv.key.window, kv.value])).toEqual([
        ['ab', { start: 10, end: 20 }, 9],
        ['a', { start: 10, end: 20 }, 2],
        ['b', { start: 10, end: 20 }, 5],
      ])
      store.put('a', null, 10)
      expect(store.fetch('a', 10)).toBeUndefined()
      store.flush()
      expect([...store.all()].length).toBe(4)
    })

    it('drops windows older than stream time minus retention: not returned, not written, purged', () => {
      const { store, context } = build()
      store.put('a', 1, 0)
      store.put('a', 2, 50)
      store.put('a', 3, 150)
      store.flush()
      context.streamTime = 160 // cutoff 60: the windows at 0 and 50 are expired
      expect(store.fetch('a', 0)).toBeUndefined()
      expect([...store.fetchRange('a', 0, 200)].map((e) => e.windowStart)).toEqual([150])
      expect([...store.all()].map((kv) => kv.key.window.start)).toEqual([150])
      const logged = context.logged.length
      store.put('a', 4, 59) // already expired: dropped
      store.flush()
      expect(context.logged.length).toBe(logged)
      context.streamTime = 0 // (not a real thing; shows the bytes are really gone after the purge)
      expect([...store.fetchRange('a', 0, 200)].map((e) => e.windowStart)).toEqual([150])
    })

    it('logs key + window start, so restoreBatch rebuilds the store', () => {
      const { store, context } = build({ caching: false })
      store.put('a', 1, 0)
      store.put('b', 2, 10)
      store.put('a', null, 0)
      expect(context.logged[0]!.key).toEqual(windowKeyBytes(Buffer.from('a'), 0))
      const { store: copy, context: copyContext } = build()
      copy.restoreBatch(context.logged)
      expect([...copy.all()].map((kv) => [kv.key.key, kv.key.window.start, kv.value])).toEqual([['b', 10, 2]])
      expect(copyContext.logged).toHaveLength(0)
    })

    it('the cache absorbs repeated writes to a window and tells the listener the windowed key', () => {
      const { store, context } = build()
      const flushed: unknown[] = []
      expect(store.setFlushListener?.((entries) => flushed.push(...entries))).toBe(true)
      for (let i = 1; i <= 100; i++) store.put('a', i, 10)
      store.flush()
      expect(context.logged).toHaveLength(1)
      expect(flushed).toEqual([
        { key: { key: 'a', window: { start: 10, end: 20 } }, newValue: 100, oldValue: null, timestamp: 0 },
      ])
    })
  })
}

describe('persistent window store reopened', () => {
  it('purges expired windows it finds on disk from an earlier run', () => {
    const dir = stateDir()
    const build = () =>
      Stores.persistentWindowStore('w', stringSerde, numberSerde, { windowSizeMs: 10, retentionMs: 100 }).build()
    const first = build()
    first.init(testContext(dir))
    first.put('a', 1, 0)
    first.put('a', 2, 500)
    first.flush()
    first.close()
    const second = build()
    const context = testContext(dir)
    context.streamTime = 550
    second.init(context)
    open.push(second)
    second.flush()
    context.streamTime = 0
    expect([...second.all()].map((kv) => kv.key.window.start)).toEqual([500])
  })
})
