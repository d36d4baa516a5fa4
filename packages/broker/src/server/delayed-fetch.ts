/**
 * The delayed-fetch purgatory: long-poll fetches that did not find `min_bytes` wait here until
 * enough bytes are appended to the partitions they read, or until their `max_wait_ms` passes.
 *
 * Invariants (docs/design.md §4, idle partitions cost nothing):
 * - A partition appears in the watcher map only while at least one parked fetch reads it; the
 *   entry is removed with its last watcher, so idle partitions hold no state here.
 * - One timer per parked fetch, none per partition.
 * - Each parked fetch completes exactly once: satisfied, expired, woken (leadership change) or
 *   cancelled (stream closed, broker stopping). Completion removes it from every watcher set and
 *   clears its timer before the callback runs.
 * - The number of parked fetches is bounded; past the bound a new fetch completes at once
 *   (the caller answers with what it has, which is always a valid long-poll answer).
 * Event-loop only; `notify` may be called from any append path.
 */
import assert from 'node:assert/strict'

export type DelayedFetchOutcome = 'satisfied' | 'expired' | 'woken' | 'cancelled' | 'overflow'

export interface DelayedFetchRequest {
  /** Partition keys (partitionKey(topic, partition)) whose appends can satisfy this fetch. */
  readonly keys: readonly string[]
  /** Bytes still missing to reach min_bytes (> 0). */
  readonly bytesNeeded: number
  readonly maxWaitMs: number
  /** Called exactly once. */
  readonly onComplete: (outcome: DelayedFetchOutcome) => void
}

export interface DelayedFetchHandle {
  /** Completes the fetch with 'cancelled' if it is still parked; a no-op otherwise. */
  cancel(): void
  readonly done: boolean
}

export interface Timers {
  set(fn: () => void, ms: number): unknown
  clear(timer: unknown): void
}

const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (t) => clearTimeout(t as NodeJS.Timeout),
}

class Parked implements DelayedFetchHandle {
  bytesSeen = 0
  timer: unknown
  done = false
  constructor(
    readonly request: DelayedFetchRequest,
    private readonly owner: DelayedFetchPurgatory,
  ) {}
  cancel(): void {
    this.owner.complete(this, 'cancelled')
  }
}

export class DelayedFetchPurgatory {
  private readonly watchers = new Map<string, Set<Parked>>()
  private readonly parked = new Set<Parked>()
  private closed = false

  constructor(
    private readonly options: { maxParked?: number; timers?: Timers; onError?: (err: unknown) => void } = {},
  ) {}

  /** Parked fetches right now. */
  get size(): number {
    return this.parked.size
  }

  /** Partitions with at least one parked fetch (0 when nothing waits). @internal visible for testing */
  get watchedPartitionCount(): number {
    return this.watchers.size
  }

  park(request: DelayedFetchRequest): DelayedFetchHandle {
    const op = new Parked(request, this)
    if (this.closed) {
      this.complete(op, 'cancelled')
      return op
    }
    if (this.parked.size >= (this.options.maxParked ?? 10_000)) {
      this.complete(op, 'overflow')
      return op
    }
    this.parked.add(op)
    for (const k of request.keys) {
      let set = this.watchers.get(k)
      if (set === undefined) {
        set = new Set()
        this.watchers.set(k, set)
      }
      set.add(op)
    }
    const timers = this.options.timers ?? realTimers
    op.timer = timers.set(() => this.complete(op, 'expired'), Math.max(0, request.maxWaitMs))
    return op
  }

  /** `bytes` were appended (and became visible) on partition `key`. */
  notify(key: string, bytes: number): void {
    const set = this.watchers.get(key)
    if (set === undefined) return
    for (const op of [...set]) {
      op.bytesSeen += bytes
      if (op.bytesSeen >= op.request.bytesNeeded) this.complete(op, 'satisfied')
    }
  }

  /** Completes every fetch reading `key` now (leadership moved, partition deleted). */
  wake(key: string): void {
    const set = this.watchers.get(key)
    if (set === undefined) return
    for (const op of [...set]) this.complete(op, 'woken')
  }

  /** Cancels every parked fetch, and any parked later (broker stopping). */
  close(): void {
    this.closed = true
    for (const op of [...this.parked]) this.complete(op, 'cancelled')
  }

  /** @internal */
  complete(op: Parked, outcome: DelayedFetchOutcome): void {
    if (op.done) return
    op.done = true
    if (op.timer !== undefined) (this.options.timers ?? realTimers).clear(op.timer)
    if (this.parked.delete(op)) {
      for (const k of op.request.keys) {
        const set = this.watchers.get(k)
        if (set === undefined) continue
        set.delete(op)
        if (set.size === 0) this.watchers.delete(k)
      }
    }
    assert(this.parked.size <= (this.options.maxParked ?? 10_000), 'parked fetches stay bounded')
    try {
      op.request.onComplete(outcome)
    } catch (e) {
      // A failing callback must not stop the other completions of the same notify or wake.
      this.options.onError?.(e)
    }
  }
}
