/**
 * The whole bytes stack (cache over logging over an engine) checked against a plain Map model
 * under random puts, deletes, flushes and evictions (a tiny cache), for both engines: gets and
 * ranges agree with the model, and replaying the changelog into a fresh engine gives the model.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { BytesEngine } from './bytes-engine.js'
import { CachingLayer } from './caching-layer.js'
import { ChangeLoggingLayer } from './change-logging-layer.js'
import { InMemoryBytesEngine } from './in-memory-engine.js'
import { LmdbBytesEngine } from './lmdb-engine.js'
import type { ChangelogRecord } from './store-types.js'

const dirs: string[] = []
const engines: BytesEngine[] = []
afterEach(() => {
  for (const engine of engines.splice(0)) engine.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function engineOf(persistent: boolean): BytesEngine {
  const engine = persistent ? new LmdbBytesEngine() : new InMemoryBytesEngine()
  const dir = mkdtempSync(join(tmpdir(), 'sluice-model-'))
  dirs.push(dir)
  engine.open(dir)
  engines.push(engine)
  return engine
}

function modelRange(model: Map<string, string>, from?: Buffer, to?: Buffer): string[] {
  return [...model.entries()]
    .map(([hex, value]) => [Buffer.from(hex, 'hex'), value] as const)
    .filter(
      ([key]) =>
        (from === undefined || Buffer.compare(key, from) >= 0) && (to === undefined || Buffer.compare(key, to) <= 0),
    )
    .sort((x, y) => Buffer.compare(x[0], y[0]))
    .map(([key, value]) => `${key.toString('hex')}=${value}`)
}

for (const persistent of [false, true]) {
  describe(`bytes stack over the ${persistent ? 'lmdb' : 'in-memory'} engine`, () => {
    it('agrees with a Map model under random writes, flushes and evictions', () => {
      const engine = engineOf(persistent)
      const log: ChangelogRecord[] = []
      const stack = new CachingLayer(new ChangeLoggingLayer(engine, { send: (r) => log.push(r) }), 6 * 70)
      const model = new Map<string, string>()
      let seed = 11
      const rand = (n: number): number => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31
        return seed % n
      }
      const randomKey = (): Buffer => Buffer.from([rand(6), rand(6), rand(6)].slice(0, 1 + rand(3)))
      for (let step = 0; step < 3000; step++) {
        const key = randomKey()
        const action = rand(10)
        if (action < 6) {
          const value = `v${step}`
          stack.put(key, Buffer.from(value), step)
          model.set(key.toString('hex'), value)
        } else if (action < 8) {
          stack.put(key, null, step)
          model.delete(key.toString('hex'))
        } else if (action === 8) {
          stack.flush()
        } else {
          const got = stack.get(key)
          expect(got?.toString()).toBe(model.get(key.toString('hex')))
        }
        if (step % 50 === 0) {
          const from = rand(3) === 0 ? undefined : randomKey()
          const to = rand(3) === 0 ? undefined : randomKey()
          const range = [...stack.range(from, to)].map(([k, v]) => `${k.toString('hex')}=${v}`)
          expect(range).toEqual(modelRange(model, from, to))
        }
      }
      stack.flush()
      expect([...engine.range()].map(([k, v]) => `${k.toString('hex')}=${v}`)).toEqual(modelRange(model))
      const replayed = engineOf(false)
      for (const record of log) replayed.put(record.key, record.value, record.timestamp)
      expect([...replayed.range()].map(([k, v]) => `${k.toString('hex')}=${v}`)).toEqual(modelRange(model))
    })
  })
}
