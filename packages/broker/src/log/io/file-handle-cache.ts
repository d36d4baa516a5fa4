/**
 * Bounded LRU of open file handles shared by every partition of a LogManager (docs/design.md §4:
 * idle partitions hold no open file). Invariants:
 * - At most `maxOpenFiles` handles are open or being opened at any moment (`openCount`).
 * - A handle is pinned while a `use` callback runs and is never closed under it; eviction picks
 *   the least recently used unpinned handle. When every handle is pinned, `use` waits for one.
 * - Callbacks must not call `use` again (each holds at most one pin), so waiting cannot deadlock.
 * - `evict(path)` forgets the path at once (the next `use` opens the file afresh, e.g. after it
 *   was deleted and re-created) and closes the old handle once its users are done.
 */
import fs from 'node:fs/promises'
import { constants, type PathLike } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'

interface Entry {
  readonly path: string
  handle: FileHandle | undefined
  opening: Promise<FileHandle> | undefined
  pins: number
  /** Set when evicted while pinned: close on last unpin. */
  doomed: boolean
}

const OPEN_EXISTING = constants.O_RDWR
const OPEN_OR_CREATE = constants.O_RDWR | constants.O_CREAT

export const DEFAULT_MAX_OPEN_FILES = 512

export class FileHandleCache {
  readonly maxOpenFiles: number
  /** Insertion order = recency order (Map iteration is oldest first). */
  private readonly entries = new Map<string, Entry>()
  private open = 0
  private openMax = 0
  private readonly waiters: Array<() => void> = []
  private closed = false

  constructor(options: { maxOpenFiles?: number } = {}) {
    const max = options.maxOpenFiles ?? DEFAULT_MAX_OPEN_FILES
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`maxOpenFiles must be a positive integer, got ${max}`)
    this.maxOpenFiles = max
  }

  /** Handles currently open or being opened. */
  get openCount(): number {
    return this.open
  }
  /** Highest openCount ever seen (tests assert the bound with it). @internal */
  get openCountMax(): number {
    return this.openMax
  }

  /** Runs `fn` with an open read-write handle for `path`; `create` makes a missing file. */
  async use<T>(path: string, fn: (fh: FileHandle) => Promise<T>, options: { create?: boolean } = {}): Promise<T> {
    if (this.closed) throw new Error('file handle cache is closed')
    const entry = await this.acquire(path, options.create === true)
    try {
      return await fn(entry.handle!)
    } finally {
      this.release(entry)
    }
  }

  /**
   * Runs `fn` at once with the handle of `path` when it is open already (the active segment's
   * .log, which every append keeps open), or answers undefined without running it: the caller
   * then takes the promise path of `use`. Saves the promise chain of a use() on reads of the
   * log's tail and on small appends (issue 16).
   */
  useSync<T>(path: string, fn: (fh: FileHandle) => T): T | undefined {
    const entry = this.entries.get(path)
    if (this.closed || entry === undefined || entry.handle === undefined || entry.doomed) return undefined
    entry.pins++
    this.entries.delete(path)
    this.entries.set(path, entry)
    try {
      return fn(entry.handle)
    } finally {
      this.release(entry)
    }
  }

  /**
   * Runs `fn`, which opens and closes at most one file of its own at a time (e.g. a checkpoint
   * write), inside the same budget, so transient opens cannot push the process past the bound.
   */
  async withSlot<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('file handle cache is closed')
    while (this.open >= this.maxOpenFiles) {
      if (!(await this.evictOne())) await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
    this.open++
    this.openMax = Math.max(this.openMax, this.open)
    try {
      return await fn()
    } finally {
      this.open--
      this.wakeOne()
    }
  }

  /** Forgets `path`; its handle closes as soon as no callback uses it. */
  async evict(path: string): Promise<void> {
    const entry = this.entries.get(path)
    if (entry === undefined) return
    this.entries.delete(path)
    entry.doomed = true
    if (entry.pins === 0) await this.closeEntry(entry)
  }

  /** Evicts every path that starts with `prefix` (a partition directory). */
  async evictUnder(prefix: string): Promise<void> {
    const paths = [...this.entries.keys()].filter((p) => p.startsWith(prefix))
    await Promise.all(paths.map((p) => this.evict(p)))
  }

  async close(): Promise<void> {
    this.closed = true
    await Promise.all([...this.entries.keys()].map((p) => this.evict(p)))
  }

  private async acquire(path: string, create: boolean): Promise<Entry> {
    let waited = false
    for (;;) {
      const existing = this.entries.get(path)
      if (existing !== undefined) {
        // A waiter woken for a free slot that did not need one passes the wake-up on.
        if (waited) this.wakeOne()
        existing.pins++
        this.entries.delete(path)
        this.entries.set(path, existing)
        if (existing.handle === undefined) {
          try {
            await existing.opening
          } catch (err) {
            existing.pins--
            throw err
          }
        }
        return existing
      }
      if (this.open < this.maxOpenFiles) return await this.openEntry(path, create)
      if (!(await this.evictOne())) {
        await new Promise<void>((resolve) => this.waiters.push(resolve))
        waited = true
      }
    }
  }

  private async openEntry(path: string, create: boolean): Promise<Entry> {
    const entry: Entry = { path, handle: undefined, opening: undefined, pins: 1, doomed: false }
    this.open++
    this.openMax = Math.max(this.openMax, this.open)
    entry.opening = fs.open(path as PathLike, create ? OPEN_OR_CREATE : OPEN_EXISTING, 0o644)
    this.entries.set(path, entry)
    try {
      entry.handle = await entry.opening
    } catch (err) {
      if (this.entries.get(path) === entry) this.entries.delete(path)
      this.open--
      this.wakeOne()
      throw err
    } finally {
      entry.opening = undefined
    }
    return entry
  }

  /** Closes the least recently used unpinned handle; false if every handle is pinned. */
  private async evictOne(): Promise<boolean> {
    for (const entry of this.entries.values()) {
      if (entry.pins === 0 && entry.handle !== undefined) {
        this.entries.delete(entry.path)
        entry.doomed = true
        await this.closeEntry(entry)
        return true
      }
    }
    return false
  }

  private release(entry: Entry): void {
    entry.pins--
    if (entry.pins > 0) return
    if (entry.doomed) {
      this.closeEntry(entry).catch(() => {}) // a failed close leaves nothing to retry
    } else {
      this.wakeOne()
    }
  }

  private async closeEntry(entry: Entry): Promise<void> {
    const handle = entry.handle
    if (handle === undefined) return
    entry.handle = undefined
    try {
      await handle.close()
    } finally {
      this.open--
      this.wakeOne()
    }
  }

  private wakeOne(): void {
    this.waiters.shift()?.()
  }
}
