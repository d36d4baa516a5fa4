/**
 * The metadata store: a ZooKeeper-shaped tree of znodes, the only place the controller keeps
 * durable state. Two backends implement it: `embedded` (in process, journal + snapshot, see
 * embedded-store.ts) and, later, `zookeeper` (a real ensemble). Everything is async so both fit.
 *
 * Semantics (ZooKeeper's, so the backends are interchangeable):
 * - Paths are absolute, "/"-separated, no trailing slash, no empty or "." / ".." segments; "/"
 *   always exists. A node's parent must exist before it is created (see `mkdirp`).
 * - Every node has a `version`, 0 at creation and +1 on every `set`. `set` and `delete` take an
 *   expected version (-1 = any) and fail with META_BAD_VERSION on a mismatch.
 * - Ephemeral nodes belong to a session and vanish when it is closed or expires; they may not
 *   have children. They are never durable: after a restart of the embedded store they are gone,
 *   exactly as a ZooKeeper session does not outlive its ensemble's memory of it.
 * - Sequential modes append a 10-digit, zero-padded counter kept per parent that only grows
 *   (it survives restarts even when the sequential node itself was ephemeral).
 * - `multi` applies its ops in order, each seeing the earlier ones, and commits all or none.
 * - Watches are one-shot, like ZooKeeper's: a callback fires at most once, for the first matching
 *   change after it was registered, and must be registered again to see later changes. Callbacks
 *   run after the change is committed, never inside the store call that made it.
 *
 * Errors are SluiceErrors: META_NO_NODE, META_NODE_EXISTS, META_BAD_VERSION, META_NOT_EMPTY,
 * META_SESSION_EXPIRED, INVALID_ARGUMENT (bad path, children of an ephemeral node),
 * METADATA_UNAVAILABLE (the store is closed or its disk failed).
 */
import { SluiceError } from '@sluice/protocol'

export type CreateMode = 'persistent' | 'ephemeral' | 'persistent-sequential' | 'ephemeral-sequential'
export type SessionId = string

export interface CreateOptions {
  readonly mode?: CreateMode // default 'persistent'
  readonly sessionId?: SessionId // required for the ephemeral modes
}

export interface NodeStat {
  readonly version: number
  /** The owning session of an ephemeral node. */
  readonly ephemeralOwner?: SessionId
  readonly numChildren: number
}

export interface NodeData extends NodeStat {
  readonly data: Buffer
}

export type StoreOp =
  | {
      readonly type: 'create'
      readonly path: string
      readonly data: Buffer
      readonly mode?: CreateMode
      readonly sessionId?: SessionId
    }
  | { readonly type: 'set'; readonly path: string; readonly data: Buffer; readonly version: number }
  | { readonly type: 'delete'; readonly path: string; readonly version: number }
  | { readonly type: 'check'; readonly path: string; readonly version: number }

export type StoreOpResult =
  | { readonly type: 'create'; readonly path: string }
  | { readonly type: 'set'; readonly version: number }
  | { readonly type: 'delete' }
  | { readonly type: 'check' }

export type WatchEventType = 'created' | 'changed' | 'deleted' | 'children'
export interface WatchEvent {
  readonly type: WatchEventType
  readonly path: string
}
export type WatchCallback = (event: WatchEvent) => void
/** Removes the watch if it has not fired yet. */
export type CancelWatch = () => void

export interface MetadataStore {
  /** Returns the created path (with the sequence suffix for sequential modes). */
  create(path: string, data: Buffer, options?: CreateOptions): Promise<string>
  get(path: string): Promise<NodeData>
  exists(path: string): Promise<NodeStat | undefined>
  /** Returns the new version. expectedVersion -1 = unconditional. */
  set(path: string, data: Buffer, expectedVersion: number): Promise<number>
  delete(path: string, expectedVersion: number): Promise<void>
  /** Child names (not paths), sorted. */
  children(path: string): Promise<string[]>
  /** All or nothing; on failure throws the first failing op's error with details.opIndex. */
  multi(ops: readonly StoreOp[]): Promise<StoreOpResult[]>

  /** A session expires when it is not touched for timeoutMs; onExpired then runs once. */
  createSession(timeoutMs: number, onExpired?: (id: SessionId) => void): Promise<SessionId>
  touchSession(id: SessionId): Promise<void>
  /** Deletes the session's ephemeral nodes. Closing an unknown session is a no-op. */
  closeSession(id: SessionId): Promise<void>

  /** One-shot: fires on creation, change or deletion of the node (it need not exist yet). */
  watchData(path: string, cb: WatchCallback): Promise<CancelWatch>
  /** One-shot: fires when a child is created or deleted, or the node is deleted. META_NO_NODE if missing. */
  watchChildren(path: string, cb: WatchCallback): Promise<CancelWatch>

  close(): Promise<void>
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is the one character ZooKeeper refuses in a path segment, so the pattern must name it.
const SEGMENT = /^[^/\u0000]+$/

/** Throws INVALID_ARGUMENT unless `path` is a well-formed absolute znode path. */
export function assertValidPath(path: string): void {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new SluiceError('INVALID_ARGUMENT', `znode path "${String(path)}" must start with "/"`)
  }
  if (path === '/') return
  for (const seg of path.slice(1).split('/')) {
    if (!SEGMENT.test(seg) || seg === '.' || seg === '..') {
      throw new SluiceError('INVALID_ARGUMENT', `znode path "${path}" has an invalid segment "${seg}"`)
    }
  }
}

export function parentOf(path: string): string {
  const i = path.lastIndexOf('/')
  return i <= 0 ? '/' : path.slice(0, i)
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}

export function joinPath(parent: string, name: string): string {
  return parent === '/' ? `/${name}` : `${parent}/${name}`
}

/** Formats a sequential suffix as ZooKeeper does: 10 digits, zero-padded. */
export function sequenceSuffix(n: number): string {
  return String(n).padStart(10, '0')
}

/** Creates `path` and any missing ancestors as empty persistent nodes (ZooKeeper's mkdirp). */
export async function mkdirp(store: MetadataStore, path: string): Promise<void> {
  assertValidPath(path)
  if (path === '/') return
  let current = ''
  for (const seg of path.slice(1).split('/')) {
    current += `/${seg}`
    if ((await store.exists(current)) !== undefined) continue
    try {
      await store.create(current, Buffer.alloc(0))
    } catch (e) {
      if (!(e instanceof SluiceError && e.code === 'META_NODE_EXISTS')) throw e
    }
  }
}
