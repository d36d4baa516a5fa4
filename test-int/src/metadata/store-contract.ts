/**
 * The MetadataStore contract as a reusable vitest suite: every backend must pass it unchanged
 * (specs/metadata/store-contract.int.test.ts runs it against `embedded` and `zookeeper`). It
 * pins down what the controller relies on and metadata-store.ts documents: CRUD with versions
 * and compare-and-set, typed errors, path validation, sorted children, sequential names,
 * ephemerals bound to sessions (closed or lease-expired), all-or-nothing multi, one-shot
 * watches, durability across reopen.
 *
 * Backend-specific details it deliberately does not assert: the exact sequence numbers after
 * other child changes (ZooKeeper's counter counts every child change), the form of session ids,
 * and error message texts.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { SluiceError } from '@sluice/protocol'
import { mkdirp, type MetadataStore, type WatchEvent } from '@sluice/metadata/internal'

export interface ContractStore {
  readonly store: MetadataStore
  /** Closes `store` and opens the backend again on the same data; absent if it has no durable state. */
  readonly reopen?: () => Promise<MetadataStore>
  /** Closes whatever store is open and removes what the factory created. */
  readonly cleanup: () => Promise<void>
}

export type ContractFactory = () => Promise<ContractStore>

export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (e) {
    if (e instanceof SluiceError) return e.code
    throw e
  }
  return 'NO_ERROR'
}

export async function until(cond: () => boolean | Promise<boolean>, what: string, deadlineMs = 10_000): Promise<void> {
  const end = Date.now() + deadlineMs
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const b = (s: string): Buffer => Buffer.from(s)

export function describeMetadataStoreContract(name: string, factory: ContractFactory): void {
  const open = async (): Promise<ContractStore> => {
    const h = await factory()
    onTestFinished(async () => {
      await h.cleanup()
    })
    return h
  }

  describe(`MetadataStore contract: ${name}`, () => {
    it('creates, reads, sets and deletes with versions (compare-and-set)', async () => {
      const { store: s } = await open()
      expect(await s.create('/a', b('1'))).toBe('/a')
      const a = await s.get('/a')
      expect([a.data.toString(), a.version, a.numChildren, a.ephemeralOwner]).toEqual(['1', 0, 0, undefined])
      expect(await s.exists('/a')).toEqual({ version: 0, numChildren: 0 })
      expect(await s.exists('/nope')).toBeUndefined()
      expect(await s.set('/a', b('2'), 0)).toBe(1)
      expect(await codeOf(s.set('/a', b('3'), 0))).toBe('META_BAD_VERSION')
      expect((await s.get('/a')).data.toString()).toBe('2')
      expect(await s.set('/a', b('4'), -1)).toBe(2)
      expect(await codeOf(s.delete('/a', 1))).toBe('META_BAD_VERSION')
      await s.create('/empty', Buffer.alloc(0))
      expect((await s.get('/empty')).data.length).toBe(0)
      await s.delete('/a', 2)
      expect(await s.exists('/a')).toBeUndefined()
      await s.delete('/empty', -1)
    })

    it('reports failures as typed SluiceErrors', async () => {
      const { store: s } = await open()
      await s.create('/p', b(''))
      await s.create('/p/c', b(''))
      expect(await codeOf(s.get('/missing'))).toBe('META_NO_NODE')
      expect(await codeOf(s.children('/missing'))).toBe('META_NO_NODE')
      expect(await codeOf(s.set('/missing', b(''), -1))).toBe('META_NO_NODE')
      expect(await codeOf(s.delete('/missing', -1))).toBe('META_NO_NODE')
      expect(await codeOf(s.create('/missing/child', b('')))).toBe('META_NO_NODE')
      expect(await codeOf(s.create('/p', b('')))).toBe('META_NODE_EXISTS')
      expect(await codeOf(s.create('/', b('')))).toBe('META_NODE_EXISTS')
      expect(await codeOf(s.delete('/p', -1))).toBe('META_NOT_EMPTY')
      expect(await codeOf(s.delete('/', -1))).toBe('INVALID_ARGUMENT')
      const err = await s.set('/p', b(''), 7).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(SluiceError)
      expect([(err as SluiceError).code, (err as SluiceError).retriable, (err as SluiceError).details.path]).toEqual([
        'META_BAD_VERSION',
        false,
        '/p',
      ])
    })

    it('rejects invalid paths with INVALID_ARGUMENT', async () => {
      const { store: s } = await open()
      for (const bad of ['', 'a', '/a/', '/a//b', '/a/./b', '/..', '/x/..']) {
        expect(await codeOf(s.get(bad))).toBe('INVALID_ARGUMENT')
        expect(await codeOf(s.exists(bad))).toBe('INVALID_ARGUMENT')
        expect(await codeOf(s.create(bad, b('')))).toBe('INVALID_ARGUMENT')
        expect(await codeOf(s.set(bad, b(''), -1))).toBe('INVALID_ARGUMENT')
        expect(await codeOf(s.delete(bad, -1))).toBe('INVALID_ARGUMENT')
        expect(await codeOf(s.children(bad))).toBe('INVALID_ARGUMENT')
        expect(await codeOf(s.watchData(bad, () => {}))).toBe('INVALID_ARGUMENT')
      }
      const err = await s
        .multi([
          { type: 'create', path: '/ok', data: b('') },
          { type: 'check', path: 'bad', version: -1 },
        ])
        .catch((e: unknown) => e)
      expect([(err as SluiceError).code, (err as SluiceError).details.opIndex]).toEqual(['INVALID_ARGUMENT', 1])
      expect(await s.exists('/ok')).toBeUndefined()
    })

    it('lists children as sorted names and counts them', async () => {
      const { store: s } = await open()
      await mkdirp(s, '/c/d')
      for (const n of ['b', 'a10', 'a2', 'Z']) await s.create(`/c/${n}`, b(''))
      expect(await s.children('/c')).toEqual(['Z', 'a10', 'a2', 'b', 'd'])
      expect((await s.exists('/c'))?.numChildren).toBe(5)
      expect(await s.children('/c/d')).toEqual([])
      expect(await s.children('/')).toContain('c')
    })

    it('names sequential nodes with 10 growing digits that never repeat', async () => {
      const { store: s } = await open()
      await s.create('/q', b(''))
      expect(await s.create('/q/item-', b('a'), { mode: 'persistent-sequential' })).toBe('/q/item-0000000000')
      expect(await s.create('/q/item-', b('b'), { mode: 'persistent-sequential' })).toBe('/q/item-0000000001')
      await s.delete('/q/item-0000000001', -1)
      const sid = await s.createSession(60_000)
      const seen = ['/q/item-0000000000', '/q/item-0000000001']
      seen.push(await s.create('/q/e-', b(''), { mode: 'ephemeral-sequential', sessionId: sid }))
      seen.push(await s.create('/q/item-', b('c'), { mode: 'persistent-sequential' }))
      const numbers = seen.map((p) => {
        expect(p).toMatch(/-\d{10}$/)
        return Number(p.slice(-10))
      })
      for (let i = 1; i < numbers.length; i++) expect(numbers[i]).toBeGreaterThan(numbers[i - 1]!)
      expect((await s.get(seen[3]!)).data.toString()).toBe('c')
      await s.closeSession(sid)
    })

    it('binds ephemeral nodes to their session and deletes them when it closes', async () => {
      const { store: s } = await open()
      await mkdirp(s, '/brokers/ids')
      expect(await codeOf(s.create('/brokers/ids/0', b(''), { mode: 'ephemeral' }))).toBe('META_SESSION_EXPIRED')
      expect(await codeOf(s.create('/brokers/ids/0', b(''), { mode: 'ephemeral', sessionId: 'no-such-session' }))).toBe(
        'META_SESSION_EXPIRED',
      )
      const sid = await s.createSession(60_000)
      const other = await s.createSession(60_000)
      expect(sid).not.toBe(other)
      await s.create('/brokers/ids/1', b('x'), { mode: 'ephemeral', sessionId: sid })
      await s.create('/brokers/ids/2', b('y'), { mode: 'ephemeral', sessionId: other })
      expect((await s.get('/brokers/ids/1')).ephemeralOwner).toBe(sid)
      expect((await s.exists('/brokers/ids/2'))?.ephemeralOwner).toBe(other)
      expect(await codeOf(s.create('/brokers/ids/1/child', b('')))).toBe('INVALID_ARGUMENT')
      expect(await s.set('/brokers/ids/1', b('z'), 0)).toBe(1)
      await s.touchSession(sid)
      await s.closeSession(sid)
      await until(async () => (await s.children('/brokers/ids')).length === 1, "the closed session's node to vanish")
      expect(await s.children('/brokers/ids')).toEqual(['2'])
      expect(await codeOf(s.touchSession(sid))).toBe('META_SESSION_EXPIRED')
      expect(await codeOf(s.create('/brokers/ids/3', b(''), { mode: 'ephemeral', sessionId: sid }))).toBe(
        'META_SESSION_EXPIRED',
      )
      await s.closeSession(sid) // closing twice is a no-op
      await s.closeSession(other)
      expect(await codeOf(s.createSession(0))).toBe('INVALID_ARGUMENT')
    })

    it('expires a session that is not touched within its timeout, once, and keeps a touched one', async () => {
      const { store: s } = await open()
      await s.create('/e', b(''))
      const expired: string[] = []
      const lazy = await s.createSession(400, (id) => expired.push(id))
      const busy = await s.createSession(400, (id) => expired.push(id))
      await s.create('/e/lazy', b(''), { mode: 'ephemeral', sessionId: lazy })
      await s.create('/e/busy', b(''), { mode: 'ephemeral', sessionId: busy })
      const deleted: WatchEvent[] = []
      await s.watchData('/e/lazy', (e) => deleted.push(e))
      const keepAlive = setInterval(() => {
        s.touchSession(busy).catch(() => {})
      }, 40)
      onTestFinished(() => {
        clearInterval(keepAlive)
      })
      await until(
        async () => expired.length > 0 && (await s.exists('/e/lazy')) === undefined && deleted.length > 0,
        'the untouched session to expire',
      )
      expect(expired).toEqual([lazy])
      expect(deleted).toEqual([{ type: 'deleted', path: '/e/lazy' }])
      expect(await codeOf(s.touchSession(lazy))).toBe('META_SESSION_EXPIRED')
      await s.touchSession(busy)
      expect(await s.children('/e')).toEqual(['busy'])
      clearInterval(keepAlive)
      await s.closeSession(busy)
      expect(expired).toEqual([lazy]) // closing is not expiring
    })

    it('applies multi in order, all or nothing', async () => {
      const { store: s } = await open()
      await s.create('/v', b('0'))
      await s.set('/v', b('1'), -1)
      const err = await s
        .multi([
          { type: 'create', path: '/m', data: b('') },
          { type: 'create', path: '/m/x', data: b('') },
          { type: 'set', path: '/v', data: b('2'), version: -1 },
          { type: 'check', path: '/v', version: 1 },
        ])
        .catch((e: unknown) => e)
      expect(err).toBeInstanceOf(SluiceError)
      expect([(err as SluiceError).code, (err as SluiceError).details.opIndex]).toEqual(['META_BAD_VERSION', 3])
      expect(await s.exists('/m')).toBeUndefined()
      expect(await s.get('/v')).toMatchObject({ version: 1, data: b('1') })
      const missing = await s
        .multi([
          { type: 'set', path: '/v', data: b('x'), version: 1 },
          { type: 'delete', path: '/gone', version: -1 },
        ])
        .catch((e: unknown) => e)
      expect([(missing as SluiceError).code, (missing as SluiceError).details.opIndex]).toEqual(['META_NO_NODE', 1])
      expect((await s.get('/v')).version).toBe(1)
      // Version 0 is a real expectation, not "any" (node-zookeeper-client's transaction gets this wrong).
      expect(await codeOf(s.multi([{ type: 'check', path: '/v', version: 0 }]))).toBe('META_BAD_VERSION')
      expect(await codeOf(s.multi([{ type: 'set', path: '/v', data: b('x'), version: 0 }]))).toBe('META_BAD_VERSION')
      expect(await codeOf(s.multi([{ type: 'delete', path: '/v', version: 0 }]))).toBe('META_BAD_VERSION')
      const res = await s.multi([
        { type: 'check', path: '/v', version: 1 },
        { type: 'create', path: '/m', data: b('') },
        { type: 'create', path: '/m/s-', data: b(''), mode: 'persistent-sequential' },
        { type: 'set', path: '/v', data: b('2'), version: 1 },
        { type: 'delete', path: '/m/s-0000000000', version: 0 },
      ])
      expect(res).toEqual([
        { type: 'check' },
        { type: 'create', path: '/m' },
        { type: 'create', path: '/m/s-0000000000' },
        { type: 'set', version: 2 },
        { type: 'delete' },
      ])
      expect(await s.multi([])).toEqual([])
      const sid = await s.createSession(60_000)
      const eph = await s.multi([
        { type: 'check', path: '/v', version: 2 },
        { type: 'create', path: '/m/e', data: b(''), mode: 'ephemeral', sessionId: sid },
      ])
      expect(eph[1]).toEqual({ type: 'create', path: '/m/e' })
      expect((await s.get('/m/e')).ephemeralOwner).toBe(sid)
      await s.closeSession(sid)
      await until(async () => (await s.exists('/m/e')) === undefined, 'the ephemeral from a multi to vanish')
    })

    it('fires each watch once, for created, changed, deleted and children', async () => {
      const { store: s } = await open()
      const data: WatchEvent[] = []
      const kids: WatchEvent[] = []
      await s.watchData('/w', (e) => data.push(e))
      await s.create('/w', b(''))
      await until(() => data.length === 1, 'the created event')
      await s.watchChildren('/w', (e) => kids.push(e))
      await s.set('/w', b('1'), -1)
      await s.create('/w/a', b(''))
      await s.create('/w/b', b(''))
      await until(() => kids.length === 1, 'the children event')
      expect(data).toEqual([{ type: 'created', path: '/w' }])
      expect(kids).toEqual([{ type: 'children', path: '/w' }])
      const twice = (e: WatchEvent): void => {
        data.push(e)
      }
      await s.watchData('/w', twice)
      await s.watchData('/w', twice) // the same callback twice is one registration
      const cancel = await s.watchData('/w', () => {
        throw new Error('cancelled watch fired')
      })
      cancel()
      await s.set('/w', b('2'), -1)
      await s.set('/w', b('3'), -1)
      await until(() => data.length === 2, 'the changed event')
      await s.watchData('/w/a', (e) => data.push(e))
      await s.watchChildren('/w/a', (e) => kids.push(e))
      await s.delete('/w/a', -1)
      await until(() => data.length === 3 && kids.length === 2, 'the deletion events')
      expect(data.slice(1)).toEqual([
        { type: 'changed', path: '/w' },
        { type: 'deleted', path: '/w/a' },
      ])
      expect(kids[1]).toEqual({ type: 'deleted', path: '/w/a' })
      expect(await codeOf(s.watchChildren('/nope', () => {}))).toBe('META_NO_NODE')
      // Nothing fires twice: later changes reach nobody. Events arrive in commit order, so once
      // the sentinel's watch has fired, any stray event would have arrived before it.
      let sentinel = false
      await s.watchData('/sentinel', () => {
        sentinel = true
      })
      await s.set('/w', b('4'), -1)
      await s.create('/w/c', b(''))
      await s.create('/sentinel', b(''))
      await until(() => sentinel, 'the sentinel watch')
      expect([data.length, kids.length]).toEqual([3, 2])
    })

    it("fires watches when a closed session's ephemerals vanish", async () => {
      const { store: s } = await open()
      await mkdirp(s, '/brokers/ids')
      const sid = await s.createSession(60_000)
      await s.create('/brokers/ids/7', b(''), { mode: 'ephemeral', sessionId: sid })
      const events: WatchEvent[] = []
      await s.watchData('/brokers/ids/7', (e) => events.push(e))
      await s.watchChildren('/brokers/ids', (e) => events.push(e))
      await s.closeSession(sid)
      await until(() => events.length === 2, 'both watches')
      expect(events).toEqual(
        expect.arrayContaining([
          { type: 'deleted', path: '/brokers/ids/7' },
          { type: 'children', path: '/brokers/ids' },
        ]),
      )
    })

    it('keeps persistent nodes and versions across reopen and drops ephemerals', async (ctx) => {
      const h = await open()
      if (h.reopen === undefined) {
        ctx.skip()
        return
      }
      let s = h.store
      await mkdirp(s, '/brokers/topics')
      await s.create('/brokers/topics/t', b('{"v":1}'))
      await s.set('/brokers/topics/t', b('{"v":2}'), 0)
      await s.create('/tmp', b(''))
      await s.delete('/tmp', 0)
      await mkdirp(s, '/brokers/ids')
      const sid = await s.createSession(60_000)
      await s.create('/brokers/ids/1', b(''), { mode: 'ephemeral', sessionId: sid })
      s = await h.reopen()
      expect(await s.get('/brokers/topics/t')).toMatchObject({ data: b('{"v":2}'), version: 1 })
      expect(await s.exists('/tmp')).toBeUndefined()
      expect(await s.children('/brokers/ids')).toEqual([])
      expect(await codeOf(s.touchSession(sid))).toBe('META_SESSION_EXPIRED')
    })

    it('refuses operations after close', async () => {
      const { store: s } = await open()
      await s.close()
      expect(await codeOf(s.get('/'))).toBe('METADATA_UNAVAILABLE')
      expect(await codeOf(s.create('/x', b('')))).toBe('METADATA_UNAVAILABLE')
      await s.close() // twice is fine
    })
  })
}
