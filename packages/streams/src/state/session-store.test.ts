import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Windowed } from '../api/record.js'
import { numberSerde, stringSerde, testContext } from './__fixtures__/store-test-kit.js'
import type { KeyValue, StateStore } from './store-types.js'
import { Stores } from './stores.js'
import { sessionKeyBytes } from './windowed-key.js'

const dirs: string[] = []
const open: StateStore[] = []

afterEach(() => {
  for (const store of open.splice(0)) store.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const session = (key: string, start: number, end: number): Windowed<string> => ({ key, window: { start, end } })
const shown = (found: Iterable<KeyValue<Windowed<string>, number>>): string[] =>
  [...found].map((kv) => `${kv.key.key}[${kv.key.window.start},${kv.key.window.end}]=${kv.value}`)

for (const persistent of [false, true]) {
  const kind = persistent ? 'persistent' : 'in-memory'

  describe(`session store (${kind})`, () => {
    const build = (caching = true) => {
      const make = persistent ? Stores.persistentSessionStore : Stores.inMemorySessionStore
      const store = make('sessions', stringSerde, numberSerde, { retentionMs: 100, caching }).build()
      let dir = '/unused'
      if (persistent) {
        dir = mkdtempSync(join(tmpdir(), 'sluice-session-'))
        dirs.push(dir)
      }
      const context = testContext(dir)
      store.init(context)
      open.push(store)
      return { store, context }
    }

    it('finds the sessions of a key that end at or after a time and start at or before another', () => {
      const { store } = build()
      store.put(session('a', 0, 10), 1)
      store.put(session('a', 20, 30), 2)
      store.put(session('a', 40, 60), 3)
      store.put(session('ab', 20, 30), 8)
      store.put(session('b', 20, 30), 9)
      expect(shown(store.findSessions('a', 25, 45))).toEqual(['a[20,30]=2', 'a[40,60]=3'])
      expect(shown(store.findSessions('a', 11, 19))).toEqual([])
      expect(shown(store.findSessions('a', 10, 0))).toEqual(['a[0,10]=1'])
      expect(shown(store.fetch('a'))).toEqual(['a[0,10]=1', 'a[20,30]=2', 'a[40,60]=3'])
      store.remove(session('a', 20, 30))
      store.flush()
      expect(shown(store.fetch('a'))).toEqual(['a[0,10]=1', 'a[40,60]=3'])
    })

    it('drops sessions that end before stream time minus retention', () => {
      const { store, context } = build()
      store.put(session('a', 0, 10), 1)
      store.put(session('a', 50, 120), 2)
      context.streamTime = 150 // cutoff 50
      expect(shown(store.fetch('a'))).toEqual(['a[50,120]=2'])
      store.put(session('a', 0, 40), 3)
      store.flush()
      context.streamTime = 0
      expect(shown(store.fetch('a'))).toEqual(['a[50,120]=2'])
    })

    it('logs key + end + start, so restoreBatch rebuilds the store', () => {
      const { store, context } = build(false)
      store.put(session('a', 5, 15), 1)
      store.put(session('a', 20, 25), 2)
      store.remove(session('a', 5, 15))
      expect(context.logged.map((r) => r.key)).toEqual([
        sessionKeyBytes(Buffer.from('a'), 5, 15),
        sessionKeyBytes(Buffer.from('a'), 20, 25),
        sessionKeyBytes(Buffer.from('a'), 5, 15),
      ])
      expect(context.logged[2]!.value).toBeNull()
      const { store: copy } = build()
      copy.restoreBatch(context.logged)
      expect(shown(copy.fetch('a'))).toEqual(['a[20,25]=2'])
    })
  })
}
