/**
 * count / reduce / aggregate over tumbling or hopping windows (Kafka's KStreamWindowAggregate).
 *
 * Each record updates every window that contains its timestamp and is still open (stream time
 * before end + grace), writes the new aggregate to the window store named by the user, and
 * forwards it as a table update keyed by Windowed<K> (end exclusive). A record whose windows
 * are all closed is dropped and counted as late; one that is older than stream time but still
 * lands in an open window is processed and counted as out of order. When only some of a
 * hopping record's windows are closed, it updates the open ones and is not counted as late.
 *
 * Every update is forwarded (the store's write cache, if any, only saves store writes); the
 * forwarded record keeps the input record's timestamp and headers.
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../api/processor.js'
import type { StreamRecord, Windowed } from '../api/record.js'
import { StreamsError } from '../errors.js'
import type { WindowStore } from '../state/store-types.js'
import type { TimeWindows } from '../windows/time-windows.js'
import { LatenessCounters } from './lateness-counters.js'
import type { WindowAggregation } from './window-aggregation.js'

export interface TimeWindowAggregateOptions<K, V, A> {
  /** The window store (size = the windows' size, retention >= size + grace), by its user-given name. */
  readonly storeName: string
  readonly windows: TimeWindows
  readonly aggregation: WindowAggregation<K, V, A>
}

export class TimeWindowAggregateProcessor<K, V, A> implements Processor<K, V, Windowed<K>, A> {
  readonly counters = new LatenessCounters()
  private context!: ProcessorContext<Windowed<K>, A>
  private store!: WindowStore<K, A>

  constructor(private readonly options: TimeWindowAggregateOptions<K, V, A>) {}

  init(context: ProcessorContext<Windowed<K>, A>): void {
    this.context = context
    this.counters.attach(context)
    this.store = context.getStateStore<WindowStore<K, A>>(this.options.storeName)
    checkWindowStore(this.store, this.options)
  }

  process(record: StreamRecord<K, V>): void {
    const { key, value, timestamp } = record
    if (key === null || value === null || timestamp < 0) {
      this.counters.countSkipped()
      return
    }
    const { windows, aggregation } = this.options
    const streamTime = this.counters.streamTimeFor(record)
    let updated = false
    for (const window of windows.windowsFor(timestamp)) {
      if (windows.closeTimeMs(window) <= streamTime) continue
      const previous = this.store.fetch(key, window.start)
      const aggregate = previous === undefined ? aggregation.first(key, value) : aggregation.add(key, value, previous)
      this.store.put(key, aggregate, window.start)
      this.context.forward({ key: { key, window }, value: aggregate, timestamp, headers: record.headers })
      updated = true
    }
    if (!updated) this.counters.countDroppedLate()
    else if (this.counters.isOutOfOrder(record)) this.counters.countOutOfOrder()
  }
}

export function timeWindowAggregateSupplier<K, V, A>(
  options: TimeWindowAggregateOptions<K, V, A>,
): ProcessorSupplier<K, V, Windowed<K>, A> {
  return () => new TimeWindowAggregateProcessor(options)
}

/** A store that cannot hold every open window would silently lose counts, so it is refused. */
function checkWindowStore<K, V, A>(store: WindowStore<K, A>, options: TimeWindowAggregateOptions<K, V, A>): void {
  const { windows, storeName, aggregation } = options
  if (store.windowSizeMs !== windows.sizeMs) {
    throw new StreamsError(
      'TOPOLOGY',
      `windowed ${aggregation.name}: store '${storeName}' has window size ${store.windowSizeMs} ms but the windows are ${windows.sizeMs} ms`,
      { details: { store: storeName } },
    )
  }
  if (store.retentionMs < windows.retentionMs) {
    throw new StreamsError(
      'CONFIG',
      `windowed ${aggregation.name}: store '${storeName}' keeps windows ${store.retentionMs} ms, less than size + grace (${windows.retentionMs} ms)`,
      { details: { store: storeName } },
    )
  }
}
