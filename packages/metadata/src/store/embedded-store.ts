/**
 * The embedded MetadataStore backend: the znode tree in memory, made durable in its own data dir
 * by an append-only journal (journal.ts) and a periodic snapshot (snapshot.ts).
 *
 * Write path (one writer at a time, the `writes` queue): apply the ops to the tree, collecting
 * undo steps; on a failing op undo them all (multi is all-or-nothing); else append one journal
 * entry with the durable effects and fdatasync it, then fire watches and resolve. Readers may see
 * a write whose fdatasync is still in flight; if the journal write fails the store undoes the
 * write and refuses every later operation (METADATA_UNAVAILABLE), since the disk state is unknown.
 * After `snapshotEveryEntries` journal entries the whole persistent tree is snapshotted and the
 * journal truncated. Open = load the snapshot, replay journal entries with a larger zxid (an entry
 * the snapshot already holds is skipped, so a crash between snapshot and truncate is harmless),
 * stop at a torn tail.
 *
 * Sessions live only in memory: one sweep timer for all of them expires those not touched within
 * their timeout, deletes their ephemeral nodes and calls their onExpired callback.
 */
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { SluiceError, systemClock, type Clock } from '@sluice/protocol'
import type { Logger } from 'pino'
import { pino } from 'pino'
import { SerialQueue } from '@sluice/server-kit'
import { Journal } from './journal.js'
import { readSnapshot, writeSnapshot } from './snapshot.js'
import { LeaseTable } from './session-leases.js'
import { ZnodeTree, newTx, type TreeTx } from './znode-tree.js'
import {
  assertValidPath,
  type CancelWatch,
  type CreateOptions,
  type MetadataStore,
  type NodeData,
  type NodeStat,
  type SessionId,
  type StoreOp,
  type StoreOpResult,
  type WatchCallback,
  type WatchEvent,
} from './metadata-store.js'

export const JOURNAL_FILE = 'metadata.journal'

export interface EmbeddedStoreOptions {
  readonly dataDir: string
  /** Snapshot and truncate the journal after this many entries (default 1000). */
  readonly snapshotEveryEntries?: number
  readonly logger?: Logger
  /** Times the session leases (default: systemClock). */
  readonly clock?: Clock
}

interface Session {
  readonly onExpired?: (id: SessionId) => void
}

export class EmbeddedStore implements MetadataStore {
  private readonly tree = new ZnodeTree()
  private readonly writes = new SerialQueue()
  private readonly sessions: LeaseTable<Session>
  private readonly dataWatches = new Map<string, Set<WatchCallback>>()
  private readonly childWatches = new Map<string, Set<WatchCallback>>()
  private readonly sessionPrefix = randomBytes(6).toString('hex')
  private sessionSeq = 0
  private state: 'open' | 'failed' | 'closed' = 'open'
  private zxid = 0

  private constructor(
    private readonly options: EmbeddedStoreOptions,
    private readonly journal: Journal,
    private readonly log: Logger,
    clock: Clock,
  ) {
    this.sessions = new LeaseTable<Session>(clock, (id) => {
      this.expire(id).catch((e: unknown) => {
        this.log.error({ err: e, session: id }, 'session expiry failed')
      })
    })
  }

  static async open(options: EmbeddedStoreOptions): Promise<EmbeddedStore> {
    await mkdir(options.dataDir, { recursive: true })
    const log = options.logger ?? pino({ level: 'silent' })
    const snapshot = await readSnapshot(options.dataDir)
    const { journal, scan } = await Journal.open(join(options.dataDir, JOURNAL_FILE))
    const store = new EmbeddedStore(options, journal, log, options.clock ?? systemClock)
    if (snapshot !== undefined) {
      store.tree.load(snapshot.nodes)
      store.zxid = snapshot.zxid
    }
    let replayed = 0
    for (const entry of scan.entries) {
      if (entry.z <= store.zxid) continue
      for (const effect of entry.e) store.tree.applyEffect(effect)
      store.zxid = entry.z
      replayed += 1
    }
    if (scan.validBytes < scan.fileBytes) {
      log.warn(
        { validBytes: scan.validBytes, fileBytes: scan.fileBytes },
        'metadata journal had a torn or corrupt tail; truncated it',
      )
    }
    log.info({ zxid: store.zxid, nodes: store.tree.size, replayed }, 'metadata store opened')
    return store
  }

  // ---- reads ----

  async get(path: string): Promise<NodeData> {
    this.assertReadable(path)
    const n = this.tree.read(path)
    if (n === undefined) throw new SluiceError('META_NO_NODE', `no node ${path}`, { path })
    return n
  }

  async exists(path: string): Promise<NodeStat | undefined> {
    this.assertReadable(path)
    const n = this.tree.read(path)
    if (n === undefined) return undefined
    const { data: _data, ...stat } = n
    return stat
  }

  async children(path: string): Promise<string[]> {
    this.assertReadable(path)
    const names = this.tree.childNames(path)
    if (names === undefined) throw new SluiceError('META_NO_NODE', `no node ${path}`, { path })
    return names
  }

  // ---- writes ----

  async create(path: string, data: Buffer, options: CreateOptions = {}): Promise<string> {
    const [r] = await this.commit([{ type: 'create', path, data, ...options }], false)
    return (r as { path: string }).path
  }

  async set(path: string, data: Buffer, expectedVersion: number): Promise<number> {
    const [r] = await this.commit([{ type: 'set', path, data, version: expectedVersion }], false)
    return (r as { version: number }).version
  }

  async delete(path: string, expectedVersion: number): Promise<void> {
    await this.commit([{ type: 'delete', path, version: expectedVersion }], false)
  }

  async multi(ops: readonly StoreOp[]): Promise<StoreOpResult[]> {
    return await this.commit(ops, true)
  }

  private async commit(ops: readonly StoreOp[], tagIndex: boolean): Promise<StoreOpResult[]> {
    if (!Array.isArray(ops)) throw new SluiceError('INVALID_ARGUMENT', 'multi takes an array of ops')
    return await this.writes.run(async () => {
      this.assertWritable()
      const tx = newTx()
      const results: StoreOpResult[] = []
      for (let i = 0; i < ops.length; i++) {
        try {
          results.push(this.tree.apply(ops[i]!, tx, (id) => this.sessions.has(id)))
        } catch (e) {
          undo(tx)
          if (tagIndex && e instanceof SluiceError)
            throw new SluiceError(e.code, `op ${i}: ${e.message}`, { ...e.details, opIndex: i }, { cause: e })
          throw e
        }
      }
      if (tx.effects.length > 0) {
        try {
          await this.journal.append({ z: this.zxid + 1, e: tx.effects })
          this.zxid += 1
        } catch (e) {
          undo(tx)
          this.state = 'failed'
          this.log.error({ err: e }, 'metadata journal write failed; the store refuses further operations')
          throw new SluiceError(
            'METADATA_UNAVAILABLE',
            `metadata journal write failed: ${(e as Error).message}`,
            {},
            { cause: e },
          )
        }
        await this.maybeSnapshot(false)
      }
      this.fire(tx.events)
      return results
    })
  }

  private async maybeSnapshot(force: boolean): Promise<void> {
    const every = this.options.snapshotEveryEntries ?? 1000
    if (this.journal.entryCount === 0 || (!force && this.journal.entryCount < every)) return
    try {
      await writeSnapshot(this.options.dataDir, { zxid: this.zxid, nodes: this.tree.dump() })
      await this.journal.reset()
      this.log.debug({ zxid: this.zxid }, 'metadata snapshot written')
    } catch (e) {
      // The journal still holds everything; try again after the next write.
      this.log.warn({ err: e }, 'metadata snapshot failed; keeping the journal')
    }
  }

  // ---- sessions ----

  async createSession(timeoutMs: number, onExpired?: (id: SessionId) => void): Promise<SessionId> {
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new SluiceError('INVALID_ARGUMENT', `session timeout ${timeoutMs} must be positive`)
    this.assertWritable()
    const id = `${this.sessionPrefix}-${++this.sessionSeq}`
    this.sessions.add(id, timeoutMs, onExpired !== undefined ? { onExpired } : {})
    return id
  }

  async touchSession(id: SessionId): Promise<void> {
    if (this.sessions.lapsed(id)) {
      await this.expire(id)
      throw new SluiceError('META_SESSION_EXPIRED', `session ${id} has expired`)
    }
    this.sessions.renew(id)
  }

  async closeSession(id: SessionId): Promise<void> {
    if (!this.sessions.has(id)) return
    await this.endSession(id)
  }

  private async expire(id: SessionId): Promise<void> {
    const lease = this.sessions.get(id)
    if (lease === undefined) return
    await this.endSession(id)
    this.log.info({ session: id, timeoutMs: lease.timeoutMs }, 'metadata session expired')
    if (lease.value.onExpired !== undefined) {
      const cb = lease.value.onExpired
      queueMicrotask(() => {
        try {
          cb(id)
        } catch (e) {
          this.log.error({ err: e }, 'session expiry callback threw')
        }
      })
    }
  }

  /** Removes the session and its ephemeral nodes (no journal: they were never durable). */
  private async endSession(id: SessionId): Promise<void> {
    this.sessions.remove(id)
    await this.writes.run(() => {
      if (this.state === 'closed') return
      const tx = newTx()
      for (const path of this.tree.ephemeralsOf(id).sort().reverse()) {
        this.tree.apply({ type: 'delete', path, version: -1 }, tx, () => false)
      }
      this.fire(tx.events)
    })
  }

  /** @internal visible for testing: runs one expiry sweep now. */
  async sweepNow(): Promise<void> {
    await Promise.all(
      this.sessions.due().map(async (id) => {
        await this.expire(id)
      }),
    )
  }

  // ---- watches ----

  async watchData(path: string, cb: WatchCallback): Promise<CancelWatch> {
    this.assertReadable(path)
    return addWatch(this.dataWatches, path, cb)
  }

  async watchChildren(path: string, cb: WatchCallback): Promise<CancelWatch> {
    this.assertReadable(path)
    if (this.tree.read(path) === undefined) throw new SluiceError('META_NO_NODE', `no node ${path}`, { path })
    return addWatch(this.childWatches, path, cb)
  }

  private fire(events: readonly WatchEvent[]): void {
    const due: Array<[WatchCallback, WatchEvent]> = []
    const take = (map: Map<string, Set<WatchCallback>>, path: string, event: WatchEvent): void => {
      const set = map.get(path)
      if (set === undefined) return
      map.delete(path)
      for (const cb of set) due.push([cb, event])
    }
    for (const ev of events) {
      if (ev.type === 'children') take(this.childWatches, ev.path, ev)
      else take(this.dataWatches, ev.path, ev)
      if (ev.type === 'deleted') take(this.childWatches, ev.path, ev)
    }
    for (const [cb, ev] of due) {
      queueMicrotask(() => {
        try {
          cb(ev)
        } catch (e) {
          this.log.error({ err: e, path: ev.path }, 'watch callback threw')
        }
      })
    }
  }

  // ---- lifecycle ----

  async close(): Promise<void> {
    if (this.state === 'closed') return
    this.sessions.clear()
    await this.writes.run(async () => {
      if (this.state === 'open') await this.maybeSnapshot(true)
      this.state = 'closed'
      this.dataWatches.clear()
      this.childWatches.clear()
      await this.journal.close()
    })
  }

  private assertReadable(path: string): void {
    if (this.state === 'closed') throw new SluiceError('METADATA_UNAVAILABLE', 'the metadata store is closed')
    assertValidPath(path)
  }

  private assertWritable(): void {
    if (this.state !== 'open') throw new SluiceError('METADATA_UNAVAILABLE', `the metadata store is ${this.state}`)
  }
}

function undo(tx: TreeTx): void {
  for (let i = tx.undo.length - 1; i >= 0; i--) tx.undo[i]!()
}

function addWatch(map: Map<string, Set<WatchCallback>>, path: string, cb: WatchCallback): CancelWatch {
  let set = map.get(path)
  if (set === undefined) {
    set = new Set()
    map.set(path, set)
  }
  set.add(cb)
  return () => {
    const s = map.get(path)
    s?.delete(cb)
    if (s?.size === 0) map.delete(path)
  }
}
