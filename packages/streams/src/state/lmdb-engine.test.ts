import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { StreamsError } from '../errors.js'
import { stringSerde, testContext } from './__fixtures__/store-test-kit.js'
import { LMDB_MAX_KEY_BYTES, LmdbBytesEngine } from './lmdb-engine.js'
import { Stores } from './stores.js'

const s = (text: string): Buffer => Buffer.from(text)
const dirs: string[] = []
const engines: LmdbBytesEngine[] = []

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-lmdb-'))
  dirs.push(dir)
  return dir
}

function openEngine(dir: string): LmdbBytesEngine {
  const engine = new LmdbBytesEngine()
  engine.open(dir)
  engines.push(engine)
  return engine
}

const entries = (engine: LmdbBytesEngine, from?: string, to?: string): string[] =>
  [...engine.range(from === undefined ? undefined : s(from), to === undefined ? undefined : s(to))].map(
    ([key, value]) => `${key}=${value}`,
  )

afterEach(() => {
  for (const engine of engines.splice(0)) engine.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('LmdbBytesEngine', () => {
  it('reads its unflushed writes, and ranges merge them over what is on disk', () => {
    const engine = openEngine(tempDir())
    for (const key of ['a', 'c', 'e', 'g']) engine.put(s(key), s(key.toUpperCase()))
    engine.flush()
    engine.put(s('b'), s('B'))
    engine.put(s('c'), s('CC'))
    engine.put(s('e'), null)
    expect(engine.get(s('c'))).toEqual(s('CC'))
    expect(engine.get(s('e'))).toBeUndefined()
    expect(engine.get(s('g'))).toEqual(s('G'))
    expect(entries(engine)).toEqual(['a=A', 'b=B', 'c=CC', 'g=G'])
    expect(entries(engine, 'b', 'e')).toEqual(['b=B', 'c=CC'])
    expect(entries(engine, 'c')).toEqual(['c=CC', 'g=G'])
    expect(entries(engine, undefined, 'a')).toEqual(['a=A'])
    engine.flush()
    expect(entries(engine)).toEqual(['a=A', 'b=B', 'c=CC', 'g=G'])
    expect(engine.approximateNumEntries()).toBe(4)
  })

  it('orders keys as unsigned bytes, takes the empty key, refuses keys over its limit', () => {
    const engine = openEngine(tempDir())
    const keys = [
      Buffer.from([0xff]),
      Buffer.from([]),
      Buffer.from([0x00]),
      Buffer.from([0x7f, 0x01]),
      Buffer.from([0x80]),
    ]
    for (const key of keys) engine.put(key, s('v'))
    engine.flush()
    expect([...engine.range()].map(([key]) => key.toString('hex'))).toEqual(['', '00', '7f01', '80', 'ff'])
    expect(engine.get(Buffer.from([]))).toEqual(s('v'))
    const huge = Buffer.alloc(LMDB_MAX_KEY_BYTES + 1)
    expect(() => engine.put(huge, s('v'))).toThrow(expect.objectContaining({ code: 'KEY_TOO_LARGE' }))
    engine.put(Buffer.alloc(LMDB_MAX_KEY_BYTES, 1), s('max'))
    engine.flush()
    expect(engine.get(Buffer.alloc(LMDB_MAX_KEY_BYTES, 1))).toEqual(s('max'))
  })

  it('a range is stable while keys are put, and while the engine flushes, during it', () => {
    const engine = openEngine(tempDir())
    for (let i = 0; i < 10; i += 2) engine.put(s(`k${i}`), s('disk'))
    engine.flush()
    engine.put(s('k4'), s('overlay'))
    const seen: string[] = []
    for (const [key, value] of engine.range()) {
      seen.push(`${key}=${value}`)
      engine.put(s(`${key}x`), s('new'))
      if (key.toString() === 'k2') engine.flush()
    }
    expect(seen).toEqual(['k0=disk', 'k2=disk', 'k4=overlay', 'k6=disk', 'k8=disk'])
    expect(entries(engine).length).toBe(10)
  })

  it('keeps what was flushed across close and reopen, and drops what was not', () => {
    const dir = tempDir()
    const first = openEngine(dir)
    first.put(s('kept'), s('1'))
    first.flush()
    first.put(s('dropped'), s('2'))
    first.close()
    const second = openEngine(dir)
    expect(second.get(s('kept'))).toEqual(s('1'))
    expect(second.get(s('dropped'))).toBeUndefined()
  })

  it('says STORE_NOT_OPEN when used closed, STORE_IO when the directory cannot hold a store', () => {
    const engine = new LmdbBytesEngine()
    expect(() => engine.get(s('a'))).toThrow(StreamsError)
    const file = join(tempDir(), 'a-file')
    writeFileSync(file, 'not a directory')
    for (const path of [file, join(tempDir(), 'missing')]) {
      expect(() => new LmdbBytesEngine().open(path)).toThrow(expect.objectContaining({ code: 'STORE_IO' }))
    }
  })
})

describe('persistent key-value store', () => {
  it('lives in stateDir/<store name> and reopens with its flushed state', () => {
    const stateDir = tempDir()
    const build = () => Stores.persistentKeyValueStore('words', stringSerde, stringSerde).build()
    const store = build()
    const context = testContext(stateDir)
    store.init(context)
    store.put('a', 'one')
    store.put('b', 'two')
    store.flush()
    expect(context.logged).toHaveLength(2)
    expect(existsSync(join(stateDir, 'words'))).toBe(true)
    store.close()
    const again = build()
    again.init(testContext(stateDir))
    expect([...again.all()]).toEqual([
      { key: 'a', value: 'one' },
      { key: 'b', value: 'two' },
    ])
    again.close()
  })

  it('a restored batch is durable without a flush of the store', () => {
    const stateDir = tempDir()
    const store = Stores.persistentKeyValueStore('restored', stringSerde, stringSerde).build()
    store.init(testContext(stateDir))
    store.restoreBatch([
      { key: s('a'), value: s('one'), timestamp: 1 },
      { key: s('b'), value: s('two'), timestamp: 2 },
      { key: s('a'), value: null, timestamp: 3 },
    ])
    store.close()
    const again = Stores.persistentKeyValueStore('restored', stringSerde, stringSerde).build()
    again.init(testContext(stateDir))
    expect([...again.all()]).toEqual([{ key: 'b', value: 'two' }])
    again.close()
  })

  it('after a crash (SIGKILL, no close) keeps exactly what was flushed', async () => {
    const fixture = fileURLToPath(new URL('./__fixtures__/crash-writer.mjs', import.meta.url))
    const built = fileURLToPath(new URL('../../dist/index.js', import.meta.url))
    expect(existsSync(built), 'the crash test runs the built package: run `npx tsc -b` first').toBe(true)
    const stateDir = tempDir()
    const count = 1000
    const child = spawn(process.execPath, [fixture, stateDir, String(count)], { stdio: ['ignore', 'pipe', 'pipe'] })
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    )
    try {
      let output = ''
      let errors = ''
      child.stderr.on('data', (chunk: Buffer) => {
        errors += chunk.toString()
      })
      await new Promise<void>((resolve, reject) => {
        const deadline = setTimeout(
          () => reject(new Error(`no FLUSHED from the writer within 20 s: ${errors}`)),
          20_000,
        )
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString()
          if (output.includes('FLUSHED')) {
            clearTimeout(deadline)
            resolve()
          }
        })
        child.once('exit', (code) => {
          clearTimeout(deadline)
          reject(new Error(`the writer exited (${code}) before FLUSHED: ${errors}`))
        })
      })
      child.kill('SIGKILL')
      expect(await exited).toBe('SIGKILL')
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
    const store = Stores.persistentKeyValueStore('crashy', stringSerde, stringSerde, { logging: false }).build()
    store.init(testContext(stateDir))
    try {
      const all = [...store.all()]
      expect(all).toHaveLength(count)
      expect(store.get('key-0')).toBe('flushed-0')
      expect(store.get(`key-${count - 1}`)).toBe(`flushed-${count - 1}`)
      expect(store.get('unflushed')).toBeUndefined()
    } finally {
      store.close()
    }
  })
})
