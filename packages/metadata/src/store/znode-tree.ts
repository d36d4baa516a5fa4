/**
 * The in-memory znode tree behind the embedded store. Pure data structure: no I/O, no timers.
 *
 * Every mutation goes through `apply` with a `TreeTx` that collects (1) undo closures, so a
 * failing `multi` rolls back the ops before it, (2) journal effects: the durable outcome of the
 * op, which `applyEffect` replays unconditionally on open, and (3) watch events to fire after the
 * commit. Ephemeral nodes produce no journal effects (they are not durable); sequential creates
 * of either kind journal the parent's counter ('q') so a sequence number is never reused.
 *
 * Invariants: every node except "/" has its parent in the map and its name in the parent's
 * `children`; ephemeral nodes have no children; `bySession` lists exactly the ephemeral nodes.
 */
import { SluiceError } from '@sluice/protocol'
import {
  assertValidPath,
  baseName,
  parentOf,
  sequenceSuffix,
  type NodeData,
  type SessionId,
  type StoreOp,
  type StoreOpResult,
  type WatchEvent,
} from './metadata-store.js'

interface ZNode {
  data: Buffer
  version: number
  /** Next sequence number for sequential children. */
  seq: number
  ephemeralOwner?: SessionId
  readonly children: Set<string>
}

/** Durable outcome of one op; `d` is base64. */
export type JournalEffect =
  | { readonly t: 'c'; readonly p: string; readonly d: string }
  | { readonly t: 's'; readonly p: string; readonly d: string }
  | { readonly t: 'd'; readonly p: string }
  | { readonly t: 'q'; readonly p: string; readonly n: number }

/** One persistent node in a snapshot: [path, base64 data, version, seq]. */
export type SnapshotNode = [string, string, number, number]

export interface TreeTx {
  readonly undo: Array<() => void>
  readonly effects: JournalEffect[]
  readonly events: WatchEvent[]
}

export function newTx(): TreeTx {
  return { undo: [], effects: [], events: [] }
}

export class ZnodeTree {
  private readonly nodes = new Map<string, ZNode>([
    ['/', { data: Buffer.alloc(0), version: 0, seq: 0, children: new Set() }],
  ])
  private readonly bySession = new Map<SessionId, Set<string>>()

  read(path: string): NodeData | undefined {
    const n = this.nodes.get(path)
    if (n === undefined) return undefined
    return {
      data: n.data,
      version: n.version,
      numChildren: n.children.size,
      ...(n.ephemeralOwner !== undefined ? { ephemeralOwner: n.ephemeralOwner } : {}),
    }
  }

  childNames(path: string): string[] | undefined {
    const n = this.nodes.get(path)
    return n === undefined ? undefined : [...n.children].sort()
  }

  ephemeralsOf(session: SessionId): string[] {
    return [...(this.bySession.get(session) ?? [])]
  }

  get size(): number {
    return this.nodes.size
  }

  /** Applies one op or throws (leaving earlier entries of `tx` for the caller to undo). */
  apply(op: StoreOp, tx: TreeTx, liveSession: (id: SessionId) => boolean): StoreOpResult {
    assertValidPath(op.path)
    switch (op.type) {
      case 'create':
        return {
          type: 'create',
          path: this.create(op.path, op.data, op.mode ?? 'persistent', op.sessionId, tx, liveSession),
        }
      case 'set':
        return { type: 'set', version: this.set(op.path, op.data, op.version, tx) }
      case 'delete':
        this.remove(op.path, op.version, tx)
        return { type: 'delete' }
      case 'check':
        this.expect(op.path, op.version)
        return { type: 'check' }
      default:
        throw new SluiceError('INVALID_ARGUMENT', `unknown store op ${JSON.stringify((op as { type?: unknown }).type)}`)
    }
  }

  private expect(path: string, version: number): ZNode {
    const n = this.nodes.get(path)
    if (n === undefined) throw new SluiceError('META_NO_NODE', `no node ${path}`, { path })
    if (version !== -1 && n.version !== version) {
      throw new SluiceError('META_BAD_VERSION', `${path} is at version ${n.version}, expected ${version}`, {
        path,
        version: n.version,
        expected: version,
      })
    }
    return n
  }

  private create(
    path: string,
    data: Buffer,
    mode: string,
    sessionId: SessionId | undefined,
    tx: TreeTx,
    liveSession: (id: SessionId) => boolean,
  ): string {
    if (path === '/') throw new SluiceError('META_NODE_EXISTS', 'the root always exists', { path })
    const ephemeral = mode === 'ephemeral' || mode === 'ephemeral-sequential'
    const sequential = mode === 'persistent-sequential' || mode === 'ephemeral-sequential'
    if (!ephemeral && mode !== 'persistent' && !sequential)
      throw new SluiceError('INVALID_ARGUMENT', `unknown create mode "${mode}"`)
    if (ephemeral && (sessionId === undefined || !liveSession(sessionId))) {
      throw new SluiceError('META_SESSION_EXPIRED', `session ${String(sessionId)} is not live`, { path })
    }
    const parentPath = parentOf(path)
    const parent = this.nodes.get(parentPath)
    if (parent === undefined)
      throw new SluiceError('META_NO_NODE', `parent ${parentPath} of ${path} does not exist`, { path })
    if (parent.ephemeralOwner !== undefined)
      throw new SluiceError('INVALID_ARGUMENT', `ephemeral node ${parentPath} cannot have children`, { path })
    let finalPath = path
    if (sequential) {
      const n = parent.seq
      parent.seq = n + 1
      tx.undo.push(() => {
        parent.seq = n
      })
      tx.effects.push({ t: 'q', p: parentPath, n: n + 1 })
      finalPath = path + sequenceSuffix(n)
    }
    if (this.nodes.has(finalPath))
      throw new SluiceError('META_NODE_EXISTS', `node ${finalPath} already exists`, { path: finalPath })
    const node: ZNode = { data: Buffer.from(data), version: 0, seq: 0, children: new Set() }
    if (ephemeral) node.ephemeralOwner = sessionId
    this.link(finalPath, node)
    tx.undo.push(() => {
      this.unlink(finalPath)
    })
    if (!ephemeral) tx.effects.push({ t: 'c', p: finalPath, d: node.data.toString('base64') })
    tx.events.push({ type: 'created', path: finalPath }, { type: 'children', path: parentPath })
    return finalPath
  }

  private set(path: string, data: Buffer, version: number, tx: TreeTx): number {
    const n = this.expect(path, version)
    const before = { data: n.data, version: n.version }
    n.data = Buffer.from(data)
    n.version += 1
    tx.undo.push(() => {
      n.data = before.data
      n.version = before.version
    })
    if (n.ephemeralOwner === undefined) tx.effects.push({ t: 's', p: path, d: n.data.toString('base64') })
    tx.events.push({ type: 'changed', path })
    return n.version
  }

  private remove(path: string, version: number, tx: TreeTx): void {
    if (path === '/') throw new SluiceError('INVALID_ARGUMENT', 'the root cannot be deleted')
    const n = this.expect(path, version)
    if (n.children.size > 0)
      throw new SluiceError('META_NOT_EMPTY', `${path} has ${n.children.size} children`, { path })
    this.unlink(path)
    tx.undo.push(() => {
      this.link(path, n)
    })
    if (n.ephemeralOwner === undefined) tx.effects.push({ t: 'd', p: path })
    tx.events.push({ type: 'deleted', path }, { type: 'children', path: parentOf(path) })
  }

  private link(path: string, node: ZNode): void {
    this.nodes.set(path, node)
    this.nodes.get(parentOf(path))!.children.add(baseName(path))
    if (node.ephemeralOwner !== undefined) {
      let set = this.bySession.get(node.ephemeralOwner)
      if (set === undefined) {
        set = new Set()
        this.bySession.set(node.ephemeralOwner, set)
      }
      set.add(path)
    }
  }

  private unlink(path: string): void {
    const node = this.nodes.get(path)
    if (node === undefined) return
    this.nodes.delete(path)
    this.nodes.get(parentOf(path))?.children.delete(baseName(path))
    if (node.ephemeralOwner !== undefined) {
      const set = this.bySession.get(node.ephemeralOwner)
      set?.delete(path)
      if (set?.size === 0) this.bySession.delete(node.ephemeralOwner)
    }
  }

  /** Replays a committed effect. Effects were validated when committed, so this never checks. */
  applyEffect(e: JournalEffect): void {
    switch (e.t) {
      case 'c': {
        if (!this.nodes.has(parentOf(e.p)) || this.nodes.has(e.p))
          throw new Error(`journal create ${e.p} does not fit the tree`)
        this.link(e.p, { data: Buffer.from(e.d, 'base64'), version: 0, seq: 0, children: new Set() })
        return
      }
      case 's': {
        const n = this.nodes.get(e.p)
        if (n === undefined) throw new Error(`journal set ${e.p} names a missing node`)
        n.data = Buffer.from(e.d, 'base64')
        n.version += 1
        return
      }
      case 'd':
        this.unlink(e.p)
        return
      case 'q': {
        const n = this.nodes.get(e.p)
        if (n !== undefined) n.seq = Math.max(n.seq, e.n)
        return
      }
    }
  }

  /** Persistent nodes, parents before children (sorted paths guarantee it). */
  dump(): SnapshotNode[] {
    const out: SnapshotNode[] = []
    for (const [path, n] of this.nodes) {
      if (n.ephemeralOwner === undefined) out.push([path, n.data.toString('base64'), n.version, n.seq])
    }
    return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  }

  load(nodes: readonly SnapshotNode[]): void {
    for (const [path, data, version, seq] of nodes) {
      if (path === '/') {
        const root = this.nodes.get('/')!
        root.data = Buffer.from(data, 'base64')
        root.version = version
        root.seq = seq
        continue
      }
      this.link(path, { data: Buffer.from(data, 'base64'), version, seq, children: new Set() })
    }
  }
}
