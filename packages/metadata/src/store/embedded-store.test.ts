import { mkdtemp, rm, readFile, writeFile, appendFile, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import fc from 'fast-check'
import { ManualClock, SluiceError } from '@sluice/protocol'
import { EmbeddedStore, JOURNAL_FILE, type EmbeddedStoreOptions } from './embedded-store.js'
import { SNAPSHOT_FILE } from './snapshot.js'

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-store-'))
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true })
  })
  return dir
}

async function openStore(dir: string, extra: Partial<EmbeddedStoreOptions> = {}): Promise<EmbeddedStore> {
  const store = await EmbeddedStore.open({ dataDir: dir, ...extra })
  onTestFinished(async () => {
    await store.close()
  })
  return store
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (e) {
    if (e instanceof SluiceError) return e.code
    throw e
  }
  return 'NO_ERROR'
}

const b = (s: string): Buffer => Buffer.from(s)

async function waitFor(cond: () => boolean | Promise<boolean>, what: string, deadlineMs = 5000): Promise<void> {
  const end = Date.now() + deadlineMs
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

describe('EmbeddedStore contract', () => {
  it('sequential names grow per parent and never repeat, even across restarts', async () => {
    const dir = await tempDir()
    let s = await EmbeddedStore.open({ dataDir: dir })
    await s.create('/q', b(''))
    expect(await s.create('/q/item-', b('a'), { mode: 'persistent-sequential' })).toBe('/q/item-0000000000')
    expect(await s.create('/q/item-', b('b'), { mode: 'persistent-sequential' })).toBe('/q/item-0000000001')
    await s.delete('/q/item-0000000001', -1)
    const sid = await s.createSession(60_000)
    expect(await s.create('/q/e-', b(''), { mode: 'ephemeral-sequential', sessionId: sid })).toBe('/q/e-0000000002')
    await s.close()
    s = await openStore(dir)
    expect(await s.children('/q')).toEqual(['item-0000000000'])
    expect(await s.create('/q/item-', b('c'), { mode: 'persistent-sequential' })).toBe('/q/item-0000000003')
  })

  it('expires sessions that miss their touches and keeps touched ones', async () => {
    const clock = new ManualClock()
    const s = await openStore(await tempDir(), { clock })
    await s.create('/e', b(''))
    const expired: string[] = []
    const lazy = await s.createSession(100, (id) => expired.push(id))
    const busy = await s.createSession(100, (id) => expired.push(id))
    await s.create('/e/lazy', b(''), { mode: 'ephemeral', sessionId: lazy })
    await s.create('/e/busy', b(''), { mode: 'ephemeral', sessionId: busy })
    for (let i = 0; i < 5; i++) {
      clock.advance(60) // the sweep timer runs on the clock too
      await s.touchSession(busy)
      await s.sweepNow()
    }
    await waitFor(() => expired.length === 1, 'expiry callback')
    expect(expired).toEqual([lazy])
    expect(await s.children('/e')).toEqual(['busy'])
    expect(await codeOf(s.touchSession(lazy))).toBe('META_SESSION_EXPIRED')
  })

  it('a session lapses when its timeout has passed since the last touch, not one ms before', async () => {
    const clock = new ManualClock()
    const s = await openStore(await tempDir(), { clock })
    const expired: string[] = []
    const sid = await s.createSession(1000, (id) => expired.push(id))
    await s.create('/held', b(''), { mode: 'ephemeral', sessionId: sid })
    clock.advance(400)
    await s.touchSession(sid)
    clock.advance(1000) // the sweep timer fires every 250 ms on the way; the last touch was 1000 ms ago
    await s.sweepNow()
    expect(expired).toEqual([])
    expect(await s.exists('/held')).toBeDefined()
    clock.advance(1)
    await s.sweepNow()
    expect(expired).toEqual([sid])
    expect(await s.exists('/held')).toBeUndefined()
  })

  it('expires sessions with its own sweep timer', async () => {
    const s = await openStore(await tempDir())
    const sid = await s.createSession(30)
    await s.create('/gone', b(''), { mode: 'ephemeral', sessionId: sid })
    let fired = false
    await s.watchData('/gone', () => {
      fired = true
    })
    await waitFor(async () => (await s.exists('/gone')) === undefined && fired, 'session expiry by the sweep timer')
  })
})

describe('EmbeddedStore durability', () => {
  it('stops at a torn or corrupt journal tail and keeps working', async () => {
    const dir = await tempDir()
    let s = await EmbeddedStore.open({ dataDir: dir, snapshotEveryEntries: 1_000_000 })
    await s.create('/a', b('a'))
    await s.create('/b', b('b'))
    await s.create('/c', b('c'))
    // Simulate a crash: no close (so no snapshot); the journal is all there is.
    const journal = await readFile(join(dir, JOURNAL_FILE))
    await s.close()
    await rm(join(dir, SNAPSHOT_FILE), { force: true })
    // Torn: the last entry is cut in the middle.
    await writeFile(join(dir, JOURNAL_FILE), journal.subarray(0, journal.length - 3))
    s = await EmbeddedStore.open({ dataDir: dir, snapshotEveryEntries: 1_000_000 })
    expect(await s.children('/')).toEqual(['a', 'b'])
    await s.create('/d', b('d'))
    const afterRepair = await readFile(join(dir, JOURNAL_FILE))
    await s.close()
    await rm(join(dir, SNAPSHOT_FILE), { force: true })
    // Corrupt: change the last entry's path from /d to /e (still valid JSON, so only the CRC can
    // catch it), then add garbage after it.
    const corrupt = Buffer.from(afterRepair)
    const at = corrupt.lastIndexOf('"/d"')
    expect(at).toBeGreaterThan(0)
    corrupt[at + 2] = 'e'.charCodeAt(0)
    await writeFile(join(dir, JOURNAL_FILE), corrupt)
    await appendFile(join(dir, JOURNAL_FILE), Buffer.from([0, 0, 0, 9, 1, 2]))
    s = await openStore(dir, { snapshotEveryEntries: 1_000_000 })
    expect(await s.children('/')).toEqual(['a', 'b'])
    expect((await stat(join(dir, JOURNAL_FILE))).size).toBeLessThan(corrupt.length)
  })

  it('snapshots, truncates the journal, and ignores journal entries the snapshot already holds', async () => {
    const dir = await tempDir()
    let s = await EmbeddedStore.open({ dataDir: dir, snapshotEveryEntries: 4 })
    await s.create('/n', b(''))
    for (let i = 0; i < 3; i++) await s.create(`/n/${i}`, b(String(i)))
    // 4 entries: the snapshot was just written and the journal emptied.
    expect((await stat(join(dir, JOURNAL_FILE))).size).toBe(0)
    await s.set('/n/0', b('x'), 0)
    await s.set('/n/0', b('y'), 1)
    const journalBeforeSnapshot = await readFile(join(dir, JOURNAL_FILE))
    await s.delete('/n/2', -1)
    await s.create('/n/3', b('3')) // 4th entry since the last snapshot -> snapshot + truncate
    expect((await stat(join(dir, JOURNAL_FILE))).size).toBe(0)
    await s.close()
    // A crash between rename(snapshot) and truncate(journal) leaves old entries behind.
    await writeFile(join(dir, JOURNAL_FILE), journalBeforeSnapshot)
    s = await openStore(dir)
    expect(await s.children('/n')).toEqual(['0', '1', '3'])
    const n0 = await s.get('/n/0')
    expect([n0.data.toString(), n0.version]).toEqual(['y', 2])
  })

  it('matches a Map model under random operations, before and after reopen', async () => {
    const names = ['/p', '/q', '/p/x', '/p/y', '/q/z']
    const opArb = fc.oneof(
      fc.record({ k: fc.constant('create' as const), i: fc.nat(4), v: fc.string({ maxLength: 4 }) }),
      fc.record({
        k: fc.constant('set' as const),
        i: fc.nat(4),
        v: fc.string({ maxLength: 4 }),
        ver: fc.integer({ min: -1, max: 2 }),
      }),
      fc.record({ k: fc.constant('delete' as const), i: fc.nat(4), ver: fc.integer({ min: -1, max: 2 }) }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 25 }), fc.integer({ min: 1, max: 6 }), async (ops, every) => {
        const dir = await mkdtemp(join(tmpdir(), 'sluice-store-model-'))
        try {
          const model = new Map<string, { data: string; version: number }>()
          let s = await EmbeddedStore.open({ dataDir: dir, snapshotEveryEntries: every })
          for (const op of ops) {
            const path = names[op.i]!
            const parent = path.lastIndexOf('/') === 0 ? '/' : path.slice(0, path.lastIndexOf('/'))
            const cur = model.get(path)
            const hasKids = [...model.keys()].some((k) => k.startsWith(`${path}/`))
            const code = await codeOf(
              op.k === 'create'
                ? s.create(path, b(op.v))
                : op.k === 'set'
                  ? s.set(path, b(op.v), op.ver)
                  : s.delete(path, op.ver),
            )
            let expected = 'NO_ERROR'
            if (op.k === 'create') {
              if (cur !== undefined) expected = 'META_NODE_EXISTS'
              else if (parent !== '/' && !model.has(parent)) expected = 'META_NO_NODE'
              else model.set(path, { data: op.v, version: 0 })
            } else if (cur === undefined) {
              expected = 'META_NO_NODE'
            } else if (op.ver !== -1 && op.ver !== cur.version) {
              expected = 'META_BAD_VERSION'
            } else if (op.k === 'set') {
              model.set(path, { data: op.v, version: cur.version + 1 })
            } else if (hasKids) {
              expected = 'META_NOT_EMPTY'
            } else {
              model.delete(path)
            }
            expect(code).toBe(expected)
          }
          for (let round = 0; round < 2; round++) {
            for (const path of names) {
              const m = model.get(path)
              const n = (await s.exists(path)) === undefined ? undefined : await s.get(path)
              expect(n === undefined ? undefined : { data: n.data.toString(), version: n.version }).toEqual(m)
            }
            await s.close()
            s = await EmbeddedStore.open({ dataDir: dir, snapshotEveryEntries: every })
          }
          await s.close()
        } finally {
          await rm(dir, { recursive: true, force: true })
        }
      }),
      { numRuns: 25 },
    )
  })
})
