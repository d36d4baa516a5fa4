/**
 * The stream–stream windowed join (inner, left, outer), as two processors, one per side, that
 * share the join's stores and stream time (stream-joined.ts names the stores, join-windows.ts
 * defines the window). For a record of one side at time t:
 *
 * 1. No value: dropped and counted (a stream record without a value has nothing to join). No
 *    key: it can never match, so a side that emits unmatched results (left side of a left
 *    join, either side of an outer join) emits its result at once; otherwise it is dropped and
 *    counted.
 * 2. Stream time moves to t if t is later; every waiting unmatched record whose window has now
 *    closed is emitted with the missing side null, at its own timestamp, oldest first.
 * 3. If the record's own window has closed (t + after + grace < stream time) it is late:
 *    dropped and counted.
 * 4. It joins each other-side record with its key and a timestamp in its window whose own
 *    window is still open; each result carries the later of the two timestamps. A waiting
 *    unmatched record that now matched stops waiting.
 * 5. It is stored for the other side's later records, and, when it matched nothing and its side
 *    emits unmatched results, it waits in the outer-shared store until its window closes.
 *
 * Because a record joins only while both windows are open, and an unmatched result is emitted
 * only after the window closed, a left/outer join never emits a record both unmatched and
 * matched (docs/streams.md, Joins; Kafka can, when a record arrives after the other's window).
 */
import type { Processor, ProcessorContext } from '../api/processor.js'
import type { StreamRecord } from '../api/record.js'
import { StreamsError } from '../errors.js'
import type { KeyValueStore, WindowStore } from '../state/store-types.js'
import { countInvalid, countLate, countOutOfOrder } from './join-metrics.js'
import { type JoinStreamTime, JoinStreamTimes } from './join-stream-time.js'
import {
  type JoinKind,
  type JoinSide,
  type NullableValueJoiner,
  type TwoSidedJoinSuppliers,
  emitsUnmatched,
} from './join-types.js'
import type { JoinWindows } from './join-windows.js'
import { type PendingKey, type PendingValues, pendingRangeEnd } from './pending-join-store.js'
import type { StreamJoinStoreNames } from './stream-joined.js'

export interface StreamStreamJoinOptions<K, V1, V2, VR> {
  readonly kind: JoinKind
  readonly windows: JoinWindows
  /** From streamJoinStoreNames (or streamJoinStores(...).names); both processors connect to these stores. */
  readonly stores: StreamJoinStoreNames
  readonly joiner: NullableValueJoiner<K, V1, V2, VR>
}

/** The two side processors of one stream–stream join; they share stream time per task. */
export function streamStreamJoin<K, V1, V2, VR>(
  options: StreamStreamJoinOptions<K, V1, V2, VR>,
): TwoSidedJoinSuppliers<K, V1, V2, VR> {
  const { kind, stores } = options
  if (kind !== 'inner' && stores.pending === undefined) {
    throw new StreamsError('TOPOLOGY', `a ${kind} stream-stream join needs its outer-shared store name`)
  }
  const times = new JoinStreamTimes()
  const { joiner, windows } = options
  const shape = { kind, windows, stores, times }
  return {
    left: () => new StreamStreamJoinProcessor<K, V1, V2, VR>('left', shape, (v, o, k) => joiner(v, o, k)),
    right: () => new StreamStreamJoinProcessor<K, V2, V1, VR>('right', shape, (v, o, k) => joiner(o, v, k)),
  }
}

type PendingStore<K> = KeyValueStore<PendingKey<K>, PendingValues<unknown, unknown>>

/** What both side processors of one join share. */
interface JoinShape {
  readonly kind: JoinKind
  readonly windows: JoinWindows
  readonly stores: StreamJoinStoreNames
  readonly times: JoinStreamTimes
}

/** One side: VT is this side's value, VO the other side's; `combine` puts them in left/right order. */
class StreamStreamJoinProcessor<K, VT, VO, VR> implements Processor<K, VT, K, VR> {
  private context!: ProcessorContext<K, VR>
  private time!: JoinStreamTime
  private thisStore!: WindowStore<K, VT[]>
  private otherStore!: WindowStore<K, VO[]>
  private pending: PendingStore<K> | undefined
  private readonly otherSide: JoinSide
  /** This side's window: other records in [t - beforeMs, t + afterMs] match a record at t. */
  private readonly beforeMs: number
  private readonly afterMs: number
  private readonly graceMs: number

  constructor(
    private readonly side: JoinSide,
    private readonly options: JoinShape,
    private readonly combine: (thisValue: VT | null, otherValue: VO | null, key: K | null) => VR,
  ) {
    const w = options.windows
    this.otherSide = side === 'left' ? 'right' : 'left'
    // Seen from the right side the window is mirrored (join-windows.ts).
    this.beforeMs = side === 'left' ? w.beforeMs : w.afterMs
    this.afterMs = side === 'left' ? w.afterMs : w.beforeMs
    this.graceMs = w.graceMs
  }

  init(context: ProcessorContext<K, VR>): void {
    const { stores } = this.options
    this.context = context
    this.time = this.options.times.acquire(context.taskId)
    this.thisStore = context.getStateStore(this.side === 'left' ? stores.left : stores.right)
    this.otherStore = context.getStateStore(this.side === 'left' ? stores.right : stores.left)
    this.pending = stores.pending === undefined ? undefined : context.getStateStore<PendingStore<K>>(stores.pending)
  }

  process(record: StreamRecord<K, VT>): void {
    const { key, value, timestamp } = record
    if (value === null) {
      countInvalid(this.context)
      return
    }
    const unmatchedSide = emitsUnmatched(this.options.kind, this.side)
    if (key === null) {
      if (unmatchedSide) this.context.forward({ ...record, value: this.combine(value, null, null) })
      else countInvalid(this.context)
      return
    }
    if (this.time.observe(timestamp)) this.emitClosed()
    const streamTime = this.time.timeMs
    if (this.closed(timestamp, this.afterMs, streamTime)) {
      countLate(this.context)
      return
    }
    if (timestamp < streamTime) countOutOfOrder(this.context)

    // The other side's after bound is this side's before bound (the window is mirrored).
    const otherAfterMs = this.beforeMs
    const matches = [...this.otherStore.fetchRange(key, timestamp - this.beforeMs, timestamp + this.afterMs)].filter(
      (entry) => !this.closed(entry.windowStart, otherAfterMs, streamTime),
    )
    const otherWaits = this.pending !== undefined && emitsUnmatched(this.options.kind, this.otherSide)
    for (const match of matches) {
      if (otherWaits) this.pending?.delete({ timestamp: match.windowStart, side: this.otherSide, key })
      for (const other of match.value) {
        this.context.forward({
          key,
          value: this.combine(value, other, key),
          timestamp: Math.max(timestamp, match.windowStart),
          headers: record.headers,
        })
      }
    }
    if (matches.length === 0 && unmatchedSide) this.wait(key, value, timestamp)
    this.thisStore.put(key, [...(this.thisStore.fetch(key, timestamp) ?? []), value], timestamp)
  }

  close(): void {
    if (this.time !== undefined) this.options.times.release(this.context.taskId, this.time)
  }

  /** A record's window is closed once stream time passes its time + its side's after bound + grace. */
  private closed(timestamp: number, afterMs: number, streamTime: number): boolean {
    return timestamp + afterMs + this.graceMs < streamTime
  }

  private wait(key: K, value: VT, timestamp: number): void {
    const pending = this.pending
    if (pending === undefined) return
    const at: PendingKey<K> = { timestamp, side: this.side, key }
    this.time.waiting(timestamp)
    const earlier = pending.get(at)?.values ?? []
    pending.put(at, { side: this.side, values: [...earlier, value] } as PendingValues<unknown, unknown>)
  }

  /** Emits (and forgets) every waiting record whose window has closed, oldest first. */
  private emitClosed(): void {
    const pending = this.pending
    if (pending === undefined) return
    const streamTime = this.time.timeMs
    const w = this.options.windows
    // A record at t may be closed once t + the shorter after bound + grace < stream time: the
    // range reads only those (entries sort by timestamp), each checked with its own side's bound.
    const firstOpen = streamTime - Math.min(w.afterMs, w.beforeMs) - w.graceMs
    if (this.time.earliestWaitingMs >= firstOpen) return
    const due: { key: PendingKey<K>; values: readonly unknown[] }[] = []
    let stillWaiting = firstOpen
    for (const entry of pending.range(undefined, pendingRangeEnd<K>(firstOpen))) {
      const afterMs = entry.key.side === 'left' ? w.afterMs : w.beforeMs
      if (this.closed(entry.key.timestamp, afterMs, streamTime)) {
        due.push({ key: entry.key, values: entry.value.values })
      } else {
        stillWaiting = Math.min(stillWaiting, entry.key.timestamp)
      }
    }
    this.time.scanned(stillWaiting)
    for (const { key, values } of due) {
      pending.delete(key)
      for (const value of values) {
        const result =
          key.side === this.side ? this.combine(value as VT, null, key.key) : this.combine(null, value as VO, key.key)
        this.context.forward({ key: key.key, value: result, timestamp: key.timestamp, headers: [] })
      }
    }
  }
}
