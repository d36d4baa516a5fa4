/**
 * The `zookeeper` MetadataStore backend: the znode tree lives in a real Apache ZooKeeper ensemble
 * (node-zookeeper-client 1.1.3), under a chroot so several Sluice clusters can share one ensemble.
 * See docs/zookeeper.md for the layout and operation.
 *
 * Mapping onto ZooKeeper (same semantics and error codes as the embedded backend):
 * - Paths are validated with assertValidPath, then prefixed with the chroot by the library
 *   (`connectString + chroot`); the chroot is created at open if missing. "/" is the chroot.
 * - Versions are ZooKeeper's data versions (0 at creation, +1 per set); -1 = any version.
 * - Create modes map to CreateMode; sequential suffixes come from ZooKeeper (10 digits, the
 *   parent's child-change counter: they grow and never repeat, but may skip numbers).
 * - `multi` is one ZooKeeper transaction; a failing op's error carries details.opIndex.
 * - Ephemeral nodes are created on the connection of their store session (zookeeper-sessions.ts),
 *   so a multi with ephemeral creates runs on that session's connection (one session per multi).
 * - Watches are ZooKeeper's one-shot watches (zookeeper-watches.ts), registered on the store's
 *   own connection; data watches use exists(), so they also fire 'created' for missing nodes.
 * - The store's own connection: a disconnect is ridden out (requests wait up to
 *   operationTimeoutMs, then fail METADATA_UNAVAILABLE, retriable). If its ZooKeeper session
 *   expires, the watches are gone with it: the store turns every call into METADATA_UNAVAILABLE
 *   and runs `onSessionExpired`, so the owner rebuilds from a fresh store, never from half-state.
 * - Reads on the store's connection after a write on a session's connection are only guaranteed
 *   to see it in a standalone server (ZooKeeper orders per connection; this client has no sync()).
 * - Node data is limited to ZooKeeper's 1 MiB (INVALID_ARGUMENT above it).
 */
import type { Client, Stat } from 'node-zookeeper-client'
import { SluiceError, systemClock, type Clock } from '@sluice/protocol'
import type { Logger } from 'pino'
import { pino } from 'pino'
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
} from './metadata-store.js'
import { ZkConnection, type ZkCallback } from './zookeeper-connection.js'
import { failedOpIndex, toSluiceError } from './zookeeper-errors.js'
import { MODES, addOp, assertVersion, tagged, toStat, validateOp } from './zookeeper-ops.js'
import { SessionTable } from './zookeeper-sessions.js'
import { WatchRegistry } from './zookeeper-watches.js'

export interface ZooKeeperStoreOptions {
  /** host:port[,host:port...], without a chroot. */
  readonly connectString: string
  /** Where this cluster's tree lives, e.g. "/sluice/prod-a" (default "/"); created if missing. */
  readonly chroot?: string
  /** The store's own ZooKeeper session (default 30 s; the server clamps it to [2, 20] x tickTime). */
  readonly sessionTimeoutMs?: number
  /** Deadline for every connection's first session (default 15 s). */
  readonly connectTimeoutMs?: number
  /** Deadline for every request, including waiting out a disconnect (default 10 s). */
  readonly operationTimeoutMs?: number
  /** Runs once if the store's own ZooKeeper session expires; the store is unusable from then on. */
  readonly onSessionExpired?: () => void
  readonly logger?: Logger
  /** Times the session leases (default: systemClock). */
  readonly clock?: Clock
}

export class ZooKeeperStore implements MetadataStore {
  private state: 'open' | 'expired' | 'closed' = 'open'
  private readonly watches: WatchRegistry

  private constructor(
    private readonly conn: ZkConnection,
    private readonly sessions: SessionTable,
    private readonly log: Logger,
  ) {
    this.watches = new WatchRegistry((err, event) => {
      this.log.error({ err, path: event.path }, 'watch callback threw')
    })
  }

  static async open(options: ZooKeeperStoreOptions): Promise<ZooKeeperStore> {
    if (
      typeof options.connectString !== 'string' ||
      options.connectString === '' ||
      options.connectString.includes('/')
    ) {
      throw new SluiceError(
        'INVALID_ARGUMENT',
        `ZooKeeper connect string "${String(options.connectString)}" must be host:port[,host:port...] (give the chroot separately)`,
      )
    }
    const chroot = options.chroot ?? '/'
    assertValidPath(chroot)
    const log = options.logger ?? pino({ level: 'silent' })
    const common = {
      connectTimeoutMs: options.connectTimeoutMs ?? 15_000,
      operationTimeoutMs: options.operationTimeoutMs ?? 10_000,
    }
    if (chroot !== '/') await ensureChroot(options.connectString, chroot, common)
    const connectString = options.connectString + (chroot === '/' ? '' : chroot)
    let store: ZooKeeperStore | undefined
    const conn = await ZkConnection.open({
      ...common,
      connectString,
      sessionTimeoutMs: options.sessionTimeoutMs ?? 30_000,
      onExpired: () => {
        store?.mainSessionExpired(options.onSessionExpired)
      },
      onStateChange: (s) => {
        log.info({ state: s }, 'zookeeper connection state')
      },
    })
    store = new ZooKeeperStore(
      conn,
      new SessionTable({ ...common, connectString }, log, options.clock ?? systemClock),
      log,
    )
    log.info(
      { connectString, session: conn.sessionId, zkTimeoutMs: conn.negotiatedTimeoutMs },
      'zookeeper metadata store opened',
    )
    return store
  }

  /** Whether the store's ZooKeeper session is connected now (readiness, metrics/metadata-admin.ts). */
  get connected(): boolean {
    return this.state === 'open' && this.conn.state === 'connected'
  }

  // ---- reads ----

  async get(path: string): Promise<NodeData> {
    this.assertOpen(path)
    const [data, stat] = await this.run(path, 'getData', (cb: ZkCallback<[Buffer | null, Stat]>) => {
      this.conn.client.getData(path, (e, d, s) => {
        cb(e, [d, s])
      })
    })
    return { data: data ?? Buffer.alloc(0), ...toStat(stat) }
  }

  async exists(path: string): Promise<NodeStat | undefined> {
    this.assertOpen(path)
    const stat = await this.run(path, 'exists', (cb: ZkCallback<Stat | null>) => {
      this.conn.client.exists(path, cb)
    })
    return stat === null || stat === undefined ? undefined : toStat(stat)
  }

  async children(path: string): Promise<string[]> {
    this.assertOpen(path)
    const names = await this.run(path, 'getChildren', (cb: ZkCallback<string[]>) => {
      this.conn.client.getChildren(path, cb)
    })
    return [...names].sort()
  }

  // ---- writes ----

  async create(path: string, data: Buffer, options: CreateOptions = {}): Promise<string> {
    this.assertOpen(path)
    const mode = options.mode ?? 'persistent'
    const zkMode = MODES[mode]
    if (zkMode === undefined) throw new SluiceError('INVALID_ARGUMENT', `unknown create mode "${String(mode)}"`)
    if (path === '/') throw new SluiceError('META_NODE_EXISTS', 'the root always exists', { path })
    const ephemeral = mode === 'ephemeral' || mode === 'ephemeral-sequential'
    const conn = ephemeral ? this.sessions.connectionOf(options.sessionId, path) : this.conn
    return await this.run(
      path,
      'create',
      (cb: ZkCallback<string>) => {
        conn.client.create(path, data, zkMode, cb)
      },
      { connection: ephemeral ? 'session' : 'store', conn },
    )
  }

  async set(path: string, data: Buffer, expectedVersion: number): Promise<number> {
    this.assertOpen(path)
    assertVersion(expectedVersion)
    const stat = await this.run(
      path,
      'setData',
      (cb: ZkCallback<Stat>) => {
        this.conn.client.setData(path, data, expectedVersion, cb)
      },
      { expectedVersion },
    )
    return stat.version
  }

  async delete(path: string, expectedVersion: number): Promise<void> {
    this.assertOpen(path)
    assertVersion(expectedVersion)
    if (path === '/') throw new SluiceError('INVALID_ARGUMENT', 'the root cannot be deleted')
    await this.run(
      path,
      'remove',
      (cb: ZkCallback<void>) => {
        this.conn.client.remove(path, expectedVersion, cb)
      },
      { expectedVersion },
    )
  }

  async multi(ops: readonly StoreOp[]): Promise<StoreOpResult[]> {
    if (!Array.isArray(ops)) throw new SluiceError('INVALID_ARGUMENT', 'multi takes an array of ops')
    this.assertOpen('/')
    let owner: SessionId | undefined
    ops.forEach((op, i) => {
      tagged(i, () => {
        validateOp(op)
        if (op.type === 'create' && (op.mode === 'ephemeral' || op.mode === 'ephemeral-sequential')) {
          if (op.sessionId === undefined)
            throw new SluiceError('META_SESSION_EXPIRED', `ephemeral create of ${op.path} names no session`, {
              path: op.path,
            })
          if (owner !== undefined && owner !== op.sessionId)
            throw new SluiceError('INVALID_ARGUMENT', 'a multi may create ephemeral nodes of one session only', {
              path: op.path,
            })
          owner = op.sessionId
        }
      })
    })
    if (ops.length === 0) return []
    const ownerIndex = ops.findIndex((op) => op.type === 'create' && op.sessionId === owner)
    const conn =
      owner === undefined
        ? this.conn
        : tagged(ownerIndex, () => this.sessions.connectionOf(owner, ops[ownerIndex]!.path))
    const tx = conn.client.transaction()
    for (const op of ops) addOp(tx, op)
    let results: unknown
    try {
      results = await conn.call<unknown>('multi', (cb) => {
        tx.commit((e, r) => {
          results = r
          cb(e, r)
        })
      })
    } catch (e) {
      const i = failedOpIndex(results)
      const op = ops[Math.max(0, i)]!
      const mapped = toSluiceError(e, {
        path: op.path,
        connection: conn === this.conn ? 'store' : 'session',
        ...('version' in op ? { expectedVersion: op.version } : {}),
      })
      if (i < 0) throw mapped
      throw new SluiceError(
        mapped.code,
        `op ${i}: ${mapped.message}`,
        { ...mapped.details, opIndex: i },
        { cause: mapped },
      )
    }
    return ops.map((op, i): StoreOpResult => {
      const r = (results as Array<{ path?: string; stat?: Stat }>)[i]
      switch (op.type) {
        case 'create':
          return { type: 'create', path: r?.path ?? op.path }
        case 'set':
          return { type: 'set', version: r?.stat?.version ?? -1 }
        case 'delete':
          return { type: 'delete' }
        default:
          return { type: 'check' }
      }
    })
  }

  // ---- sessions ----

  async createSession(timeoutMs: number, onExpired?: (id: SessionId) => void): Promise<SessionId> {
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new SluiceError('INVALID_ARGUMENT', `session timeout ${timeoutMs} must be positive`)
    this.assertOpen('/')
    return await this.sessions.create(timeoutMs, onExpired)
  }

  async touchSession(id: SessionId): Promise<void> {
    await this.sessions.touch(id)
  }

  async closeSession(id: SessionId): Promise<void> {
    await this.sessions.close(id)
  }

  /** @internal The ZooKeeper client of a store session (or the store's own, without id), for tests that make ZooKeeper expire it. */
  zkClient(id?: SessionId): Client | undefined {
    return id === undefined ? this.conn.client : this.sessions.connection(id)?.client
  }

  // ---- watches ----

  async watchData(path: string, cb: WatchCallback): Promise<CancelWatch> {
    this.assertOpen(path)
    const { watcher, cancel } = this.watches.add('data', path, cb)
    try {
      await this.run(path, 'exists', (done: ZkCallback<Stat | null>) => {
        this.conn.client.exists(path, watcher, done)
      })
    } catch (e) {
      cancel()
      throw e
    }
    return cancel
  }

  async watchChildren(path: string, cb: WatchCallback): Promise<CancelWatch> {
    this.assertOpen(path)
    const { watcher, cancel } = this.watches.add('children', path, cb)
    try {
      await this.run(path, 'getChildren', (done: ZkCallback<string[]>) => {
        this.conn.client.getChildren(path, watcher, done)
      })
    } catch (e) {
      cancel()
      throw e
    }
    return cancel
  }

  // ---- lifecycle ----

  async close(): Promise<void> {
    if (this.state === 'closed') return
    this.state = 'closed'
    this.watches.clear()
    await this.sessions.closeAll()
    await this.conn.close()
  }

  private mainSessionExpired(hook: (() => void) | undefined): void {
    if (this.state !== 'open') return
    this.state = 'expired'
    this.watches.clear()
    this.log.error('the metadata store lost its ZooKeeper session; it refuses every operation until it is reopened')
    if (hook !== undefined)
      queueMicrotask(() => {
        try {
          hook()
        } catch (e) {
          this.log.error({ err: e }, 'onSessionExpired threw')
        }
      })
  }

  private assertOpen(path: string): void {
    if (this.state !== 'open') {
      throw new SluiceError(
        'METADATA_UNAVAILABLE',
        this.state === 'closed'
          ? 'the metadata store is closed'
          : 'the metadata store lost its ZooKeeper session; reopen it',
      )
    }
    assertValidPath(path)
  }

  private async run<T>(
    path: string,
    what: string,
    request: (cb: ZkCallback<T>) => void,
    ctx: { connection?: 'store' | 'session'; conn?: ZkConnection; expectedVersion?: number } = {},
  ): Promise<T> {
    try {
      return await (ctx.conn ?? this.conn).call(`${what} ${path}`, request)
    } catch (e) {
      throw toSluiceError(e, {
        path,
        connection: ctx.connection ?? 'store',
        ...(ctx.expectedVersion !== undefined ? { expectedVersion: ctx.expectedVersion } : {}),
      })
    }
  }
}

/** Creates the chroot and its ancestors over a short-lived connection without a chroot. */
async function ensureChroot(
  connectString: string,
  chroot: string,
  common: { connectTimeoutMs: number; operationTimeoutMs: number },
): Promise<void> {
  const conn = await ZkConnection.open({ ...common, connectString, sessionTimeoutMs: 10_000 })
  try {
    let current = ''
    for (const seg of chroot.slice(1).split('/')) {
      current += `/${seg}`
      const path = current
      try {
        await conn.call<string>(`create ${path}`, (cb) => {
          conn.client.create(path, cb)
        })
      } catch (e) {
        const err = toSluiceError(e, { path, connection: 'store' })
        if (err.code !== 'META_NODE_EXISTS') throw err
      }
    }
  } finally {
    await conn.close()
  }
}
