/**
 * The delayed-fetch purgatory: long-poll fetches that did not find `min_bytes` wait here until
 * enough bytes are appended to the partitions they read, or until their `max_wait_ms` passes.
 *
 * Invariants (docs/design.md §4, idle partitions cost nothing):
 * - A partition appears in the watcher map only while at least one parked fetch reads it; the
 *   entry is removed with its last watcher, so idle partitions hold no state here.
 * - One timer for the whole purgatory, armed for the earliest deadline, none per fetch or
 *   partition: parked fetches wait in a heap ordered by deadline. A completed fetch stays in the
 *   heap, marked done and holding nothing, until its deadline comes up or the heap is compacted
 *   (when done entries outnumber live ones). Arming and clearing a Node timer per parked fetch
 *   cost more than the fetch's own bookkeeping at low rates (docs/decisions.md).
 * - Each parked fetch completes exactly once: satisfied, expired, woken (leadership change) or
 *   cancelled (stream closed, broker stopping). Completion removes it from every watcher set
 *   before the callback runs.
 * - The number of parked fetches is bounded; past the bound a new fetch completes at once
 *   (the caller answers with what it has, which is always a valid long-poll answer).
 * Event-loop only; `notify` may be called from any append path.
 */
import assert from 'node:assert/strict'
import { MinHeap } from '@sluice/protocol'

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
  /** Milliseconds on a monotonic clock. */
  now(): number
  set(fn: () => void, ms: number): unknown
  clear(timer: unknown): void
}

const realTimers: Timers = {
  now: () => performance.now(),
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (t) => clearTimeout(t as NodeJS.Timeout),
}

/**
 * A Node timer may fire up to a millisecond before a deadline read from `performance.now()` (its
 * start is the loop's cached, whole-millisecond time): a fetch that close to its deadline expires
 * with the others rather than arming the timer again for the remainder.
 */
const EXPIRY_SLACK_MS = 1

/** Done entries the heap may hold beyond twice the live ones before it is compacted. */
const COMPACT_SLACK = 64

/** Stands in for a completed fetch's request, so the heap entry it leaves holds nothing. */
const SPENT: DelayedFetchRequest = Object.freeze({ keys: [], bytesNeeded: 0, maxWaitMs: 0, onComplete: () => {} })

class Parked implements DelayedFetchHandle {
  bytesSeen = 0
  done = false
  constructor(
    public request: DelayedFetchRequest,
    readonly deadline: number,
    private readonly owner: DelayedFetchPurgatory,
  ) {}
  cancel(): void {
    this.owner.complete(this, 'cancelled')
  }
}

export class DelayedFetchPurgatory {
  private readonly watchers = new Map<string, Set<Parked>>()
  private readonly parked = new Set<Parked>()
  /** Parked fetches by deadline (a binary min-heap); completed ones leave lazily. */
  private readonly deadlines = new MinHeap<Parked>((a, b) => a.deadline < b.deadline)
  private readonly timers: Timers
  private timer: unknown
  /** The deadline the timer is armed for (undefined: not armed). */
  private armedFor: number | undefined
  private closed = false

  constructor(
    private readonly options: { maxParked?: number; timers?: Timers; onError?: (err: unknown) => void } = {},
  ) {
    this.timers = options.timers ?? realTimers
  }

  /** Parked fetches right now. */
  get size(): number {
    return this.parked.size
  }

  /** Partitions with at least one parked fetch (0 when nothing waits). @internal visible for testing */
  get watchedPartitionCount(): number {
    return this.watchers.size
  }

  /** Whether the purgatory's one timer is armed. @internal visible for testing */
  get timerArmed(): boolean {
    return this.armedFor !== undefined
  }

  /** Entries in the deadline heap, completed ones included. @internal visible for testing */
  get deadlineEntries(): number {
    return this.deadlines.size
  }

  park(request: DelayedFetchRequest): DelayedFetchHandle {
    const op = new Parked(request, this.timers.now() + Math.max(0, request.maxWaitMs), this)
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
    this.deadlines.push(op)
    if (this.armedFor === undefined || op.deadline < this.armedFor) this.arm(op.deadline)
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
    this.disarm()
    this.deadlines.clear()
  }

  /** @internal */
  complete(op: Parked, outcome: DelayedFetchOutcome): void {
    if (op.done) return
    op.done = true
    const request = op.request
    op.request = SPENT
    if (this.parked.delete(op)) {
      for (const k of request.keys) {
        const set = this.watchers.get(k)
        if (set === undefined) continue
        set.delete(op)
        if (set.size === 0) this.watchers.delete(k)
      }
      if (this.deadlines.size > 2 * this.parked.size + COMPACT_SLACK) this.deadlines.retain((op) => !op.done)
    }
    assert(this.parked.size <= (this.options.maxParked ?? 10_000), 'parked fetches stay bounded')
    try {
      request.onComplete(outcome)
    } catch (e) {
      // A failing callback must not stop the other completions of the same notify or wake.
      this.options.onError?.(e)
    }
  }

  private arm(deadline: number): void {
    this.disarm()
    this.armedFor = deadline
    this.timer = this.timers.set(() => this.expire(), Math.max(0, deadline - this.timers.now()))
  }

  private disarm(): void {
    if (this.armedFor === undefined) return
    this.timers.clear(this.timer)
    this.armedFor = undefined
    this.timer = undefined
  }

  /** The timer fired: completes every fetch whose deadline has come, then arms for the next one. */
  private expire(): void {
    this.armedFor = undefined
    this.timer = undefined
    const now = this.timers.now() + EXPIRY_SLACK_MS
    for (let op = this.deadlines.peek(); op !== undefined; op = this.deadlines.peek()) {
      if (!op.done && op.deadline > now) {
        this.arm(op.deadline)
        return
      }
      this.deadlines.pop()
      this.complete(op, 'expired') // a no-op for one already done
    }
  }
}
