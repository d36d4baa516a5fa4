/**
 * Session leases, shared by both store backends. The MetadataStore contract says a session
 * expires when it is not touched for its timeout; the controller relies on that to notice a
 * broker that stops heartbeating while its stream stays open (a SIGSTOPped process). One sweep
 * timer serves every lease (never one timer per session); it runs at a quarter of the shortest
 * timeout, between 5 ms and 1 s, and stops when no lease is left.
 *
 * The table only tracks time: what ending a session means (deleting ephemerals, closing a
 * ZooKeeper connection) is the backend's `onLapse`, called at most once per lease. Leases are
 * timed on the clock's monotonic reading, so setting the wall clock neither ends nor extends one.
 */
import type { Clock, Timer } from '@sluice/protocol'
import type { SessionId } from './metadata-store.js'

export interface Lease<T> {
  readonly timeoutMs: number
  lastTouchMs: number
  readonly value: T
}

export class LeaseTable<T> {
  private readonly leases = new Map<SessionId, Lease<T>>()
  private sweepTimer: Timer | undefined
  private sweepEveryMs = Infinity

  constructor(
    private readonly clock: Clock,
    private readonly onLapse: (id: SessionId, lease: Lease<T>) => void,
  ) {}

  get size(): number {
    return this.leases.size
  }

  get(id: SessionId): Lease<T> | undefined {
    return this.leases.get(id)
  }

  has(id: SessionId): boolean {
    return this.leases.has(id)
  }

  values(): IterableIterator<Lease<T>> {
    return this.leases.values()
  }

  add(id: SessionId, timeoutMs: number, value: T): void {
    this.leases.set(id, { timeoutMs, lastTouchMs: this.clock.monotonicMs(), value })
    const every = Math.max(5, Math.min(1000, Math.floor(timeoutMs / 4)))
    if (this.sweepTimer !== undefined && every >= this.sweepEveryMs) return
    this.stopSweep()
    this.sweepEveryMs = every
    this.sweepTimer = this.clock
      .setInterval(() => {
        this.sweep()
      }, every)
      .unref()
  }

  /** True if the lease lapsed (the caller then expires it), else renews it. */
  lapsed(id: SessionId): boolean {
    const lease = this.leases.get(id)
    return lease === undefined || this.clock.monotonicMs() - lease.lastTouchMs > lease.timeoutMs
  }

  renew(id: SessionId): void {
    const lease = this.leases.get(id)
    if (lease !== undefined) lease.lastTouchMs = this.clock.monotonicMs()
  }

  /** Removes and returns the lease (undefined if it was already gone). */
  remove(id: SessionId): Lease<T> | undefined {
    const lease = this.leases.get(id)
    this.leases.delete(id)
    if (this.leases.size === 0) this.stopSweep()
    return lease
  }

  /** The ids whose lease has lapsed now. */
  due(): SessionId[] {
    const now = this.clock.monotonicMs()
    return [...this.leases].filter(([, l]) => now - l.lastTouchMs > l.timeoutMs).map(([id]) => id)
  }

  clear(): void {
    this.leases.clear()
    this.stopSweep()
  }

  private stopSweep(): void {
    this.sweepTimer?.cancel()
    this.sweepTimer = undefined
    this.sweepEveryMs = Infinity
  }

  private sweep(): void {
    for (const id of this.due()) {
      const lease = this.leases.get(id)
      if (lease !== undefined) this.onLapse(id, lease)
    }
  }
}
