/**
 * The store's watch callbacks over ZooKeeper's native one-shot watches, with the embedded
 * backend's semantics: per (kind, path) a set of callbacks (registering the same callback twice
 * before it fires is one registration), each fires at most once, for the first matching event.
 *
 * One stable ZooKeeper watcher function exists per (kind, path). Every registration adds its
 * callback to the set *before* the exists/getChildren request that arms the server-side watch:
 * ZooKeeper sends a notification before any later reply on the same connection, so an event the
 * new registration armed for cannot slip past it. The library fires a data watcher for
 * NODE_CREATED from both of its tables; the second call finds the set already taken and does
 * nothing. A cancelled callback leaves its server watch armed: harmless, it fires an empty set.
 * The watcher function is dropped once its set is empty (memory stays bounded by live watches);
 * a watcher still armed in the library then just calls `fire` for a set that is gone or new,
 * which is still at most once per callback.
 *
 * Mapping: NODE_CREATED -> 'created', NODE_DATA_CHANGED -> 'changed', NODE_DELETED -> 'deleted'
 * (data and children watches), NODE_CHILDREN_CHANGED -> 'children'.
 */
import zookeeper from 'node-zookeeper-client'
import type { Event } from 'node-zookeeper-client'
import type { CancelWatch, WatchCallback, WatchEvent, WatchEventType } from './metadata-store.js'

export type WatchKind = 'data' | 'children'

function eventType(type: number): WatchEventType | undefined {
  switch (type) {
    case zookeeper.Event.NODE_CREATED:
      return 'created'
    case zookeeper.Event.NODE_DATA_CHANGED:
      return 'changed'
    case zookeeper.Event.NODE_DELETED:
      return 'deleted'
    case zookeeper.Event.NODE_CHILDREN_CHANGED:
      return 'children'
    default:
      return undefined
  }
}

export class WatchRegistry {
  private readonly callbacks = {
    data: new Map<string, Set<WatchCallback>>(),
    children: new Map<string, Set<WatchCallback>>(),
  }
  private readonly watchers = {
    data: new Map<string, (e: Event) => void>(),
    children: new Map<string, (e: Event) => void>(),
  }

  constructor(private readonly onCallbackError: (err: unknown, event: WatchEvent) => void) {}

  /** Adds `cb`; returns the ZooKeeper watcher to arm and the cancel function. */
  add(kind: WatchKind, path: string, cb: WatchCallback): { watcher: (e: Event) => void; cancel: CancelWatch } {
    const map = this.callbacks[kind]
    let set = map.get(path)
    if (set === undefined) {
      set = new Set()
      map.set(path, set)
    }
    set.add(cb)
    const cancel = (): void => {
      const s = map.get(path)
      s?.delete(cb)
      if (s?.size === 0) {
        map.delete(path)
        this.watchers[kind].delete(path)
      }
    }
    return { watcher: this.watcherFor(kind, path), cancel }
  }

  private watcherFor(kind: WatchKind, path: string): (e: Event) => void {
    let w = this.watchers[kind].get(path)
    if (w === undefined) {
      w = (e: Event) => {
        this.fire(kind, path, e)
      }
      this.watchers[kind].set(path, w)
    }
    return w
  }

  private fire(kind: WatchKind, path: string, e: Event): void {
    const type = eventType(e.getType())
    const set = this.callbacks[kind].get(path)
    if (type === undefined || set === undefined) return
    this.callbacks[kind].delete(path)
    this.watchers[kind].delete(path)
    const event: WatchEvent = { type, path }
    // Never run user code inside the library's socket handler.
    for (const cb of set) {
      queueMicrotask(() => {
        try {
          cb(event)
        } catch (err) {
          this.onCallbackError(err, event)
        }
      })
    }
  }

  /** Drops every callback: after the store's session expired none of them can fire. */
  clear(): void {
    this.callbacks.data.clear()
    this.callbacks.children.clear()
    this.watchers.data.clear()
    this.watchers.children.clear()
  }
}
