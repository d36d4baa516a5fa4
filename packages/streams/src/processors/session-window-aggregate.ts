/**
 * count / reduce / aggregate over session windows (Kafka's KStreamSessionWindowAggregate).
 *
 * A record at t finds its key's sessions within the inactivity gap (end >= t - gap and
 * start <= t + gap) in the session store named by the user. The open ones merge with the
 * record into one session [earliest start, latest end]: their aggregates are merged (the
 * aggregation's `merge`, oldest session first) and the record added. Each session merged away
 * is removed from the store and a tombstone for its Windowed key is forwarded, then the merged
 * session's aggregate. A session that only grows in place (the record is inside it) is updated,
 * not tombstoned. Forwarded records carry the session's end as their timestamp (as Kafka).
 *
 * Closed sessions are final: they never merge again, even when a late record bridges one to an
 * open session (Kafka merges them; keeping them final is what lets suppress emit exactly one
 * result per session). A record whose merged session would be closed is dropped and counted late.
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../api/processor.js'
import type { StreamRecord, Windowed } from '../api/record.js'
import { StreamsError } from '../errors.js'
import type { KeyValue, SessionStore } from '../state/store-types.js'
import type { SessionWindows } from '../windows/session-windows.js'
import { LatenessCounters } from './lateness-counters.js'
import type { WindowAggregation } from './window-aggregation.js'

export interface SessionWindowAggregateOptions<K, V, A> {
  /** The session store (retention >= gap + grace), by its user-given name. */
  readonly storeName: string
  readonly windows: SessionWindows
  /** Must have `merge` (count and reduce do; aggregate needs a merger). */
  readonly aggregation: WindowAggregation<K, V, A>
}

export class SessionWindowAggregateProcessor<K, V, A> implements Processor<K, V, Windowed<K>, A> {
  readonly counters = new LatenessCounters()
  private context!: ProcessorContext<Windowed<K>, A>
  private store!: SessionStore<K, A>
  private readonly merge: (key: K, older: A, newer: A) => A

  constructor(private readonly options: SessionWindowAggregateOptions<K, V, A>) {
    const { merge } = options.aggregation
    if (merge === undefined) {
      throw new StreamsError(
        'TOPOLOGY',
        `session ${options.aggregation.name} on store '${options.storeName}': session windows need a merger (how two sessions' aggregates combine)`,
        { details: { store: options.storeName } },
      )
    }
    this.merge = merge
  }

  init(context: ProcessorContext<Windowed<K>, A>): void {
    this.context = context
    this.counters.attach(context)
    const { storeName, windows, aggregation } = this.options
    this.store = context.getStateStore<SessionStore<K, A>>(storeName)
    if (this.store.retentionMs < windows.retentionMs) {
      throw new StreamsError(
        'CONFIG',
        `session ${aggregation.name}: store '${storeName}' keeps sessions ${this.store.retentionMs} ms, less than gap + grace (${windows.retentionMs} ms)`,
        { details: { store: storeName } },
      )
    }
  }

  process(record: StreamRecord<K, V>): void {
    const { key, value, timestamp: t } = record
    if (key === null || value === null || t < 0) {
      this.counters.countSkipped()
      return
    }
    const { windows, aggregation } = this.options
    const streamTime = this.counters.streamTimeFor(record)
    const gap = windows.inactivityGapMs
    const open: KeyValue<Windowed<K>, A>[] = []
    for (const session of this.store.findSessions(key, t - gap, t + gap)) {
      if (windows.closeTimeMs(session.key.window) > streamTime) open.push(session)
    }
    open.sort((a, b) => a.key.window.start - b.key.window.start || a.key.window.end - b.key.window.end)
    let start = t
    let end = t
    for (const session of open) {
      start = Math.min(start, session.key.window.start)
      end = Math.max(end, session.key.window.end)
    }
    if (windows.closeTimeMs({ start, end }) <= streamTime) {
      this.counters.countDroppedLate()
      return
    }
    let aggregate: A
    if (open.length === 0) {
      aggregate = aggregation.first(key, value)
    } else {
      let merged = open[0]!.value
      for (const session of open.slice(1)) merged = this.merge(key, merged, session.value)
      aggregate = aggregation.add(key, value, merged)
    }
    for (const session of open) {
      const { window } = session.key
      if (window.start === start && window.end === end) continue
      this.store.remove(session.key)
      this.context.forward({ key: session.key, value: null, timestamp: window.end, headers: record.headers })
    }
    const merged: Windowed<K> = { key, window: { start, end } }
    this.store.put(merged, aggregate)
    this.context.forward({ key: merged, value: aggregate, timestamp: end, headers: record.headers })
    if (this.counters.isOutOfOrder(record)) this.counters.countOutOfOrder()
  }
}

export function sessionWindowAggregateSupplier<K, V, A>(
  options: SessionWindowAggregateOptions<K, V, A>,
): ProcessorSupplier<K, V, Windowed<K>, A> {
  return () => new SessionWindowAggregateProcessor(options)
}
