/**
 * suppress(...) on a table (Kafka's KTableSuppressProcessor): holds back the table's updates
 * and forwards only some of them (processors/suppressed.ts says which).
 *
 * Each update is buffered as the latest value of its key (suppress-buffer.ts); after every
 * update, the keys whose due time has come (due <= stream time) are forwarded, oldest first,
 * then the buffer's bounds are enforced. Stream time is the task's, so a window closes when any
 * record of the task moves stream time past its close, as soon as the next update reaches this
 * node.
 *
 * untilWindowCloses: a window's key is due at its close (the window definition's closeTimeMs:
 * end + grace for time windows). Exactly one result per window: an update for a window that is
 * already closed (its aggregation drops those, so only a misconfigured topology sends one) is
 * dropped and counted late, and a buffered tombstone is dropped at the close instead of
 * forwarded (Kafka does the same: a window that was never emitted needs no delete).
 *
 * The buffer is in memory and not logged (suppress-buffer.ts; docs/streams.md, Windows). Kafka
 * logs its buffer to a changelog of its own and restores it. Here, for untilWindowCloses,
 * `rebuildFromStore` names the upstream aggregation's window or session store: that store is
 * restored from its changelog before the task processes, and it holds the latest aggregate of
 * every window that is still open, which is exactly what the buffer held (less
 * tombstones, which untilWindowCloses drops anyway). So on its first record after a start the
 * processor buffers every window of that store again and emits each when it closes. A window
 * emitted before a crash but still in the store (its close falls between the last commit and
 * the crash) is emitted again: at-least-once, like every output of the task.
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../api/processor.js'
import type { StreamRecord, Windowed } from '../api/record.js'
import { StreamsError } from '../errors.js'
import type { SessionStore, WindowStore } from '../state/store-types.js'
import type { WindowBounds } from '../windows/durations.js'
import { LatenessCounters } from './lateness-counters.js'
import { estimateBytes, stableKey } from './stable-key.js'
import { type BufferedEntry, SuppressBuffer } from './suppress-buffer.js'
import type { Suppressed } from './suppressed.js'

/** What a window definition tells suppress: when a window is closed (TimeWindows, SlidingWindows, SessionWindows). */
export interface WindowCloser {
  closeTimeMs(window: WindowBounds): number
}

export interface SuppressOptions<K> {
  /** A name for errors and describe() (the suppress node's name). */
  readonly name: string
  readonly suppressed: Suppressed
  /** The upstream windows; required for untilWindowCloses (keys are then Windowed). */
  readonly windows?: WindowCloser
  /** Identifies keys by value (default: stableKey); the DSL may pass the key serde's bytes. */
  readonly keyIdentity?: (key: K) => string
  /** A buffered entry's size for maxBytes (default: an estimate); the DSL may pass serialized sizes. */
  readonly sizeOf?: (key: K, value: unknown) => number
  /**
   * untilWindowCloses: the upstream aggregation's window or session store, read once on the
   * first record to rebuild the buffer after a restart (see above; a session store without the
   * optional all() is not read). The DSL connects this processor to that store.
   */
  readonly rebuildFromStore?: string
}

export class SuppressProcessor<K, V> implements Processor<K, V, K, V> {
  readonly counters = new LatenessCounters()
  private context!: ProcessorContext<K, V>
  private readonly buffer: SuppressBuffer<K, V>
  private rebuilt = false

  constructor(private readonly options: SuppressOptions<K>) {
    if (options.rebuildFromStore !== undefined && options.suppressed.kind !== 'until-window-closes') {
      throw new StreamsError(
        'TOPOLOGY',
        `suppress '${options.name}': only untilWindowCloses can rebuild its buffer from the upstream window store`,
        { details: { processor: options.name } },
      )
    }
    if (options.suppressed.kind === 'until-window-closes' && options.windows === undefined) {
      throw new StreamsError(
        'TOPOLOGY',
        `suppress '${options.name}': untilWindowCloses needs a windowed table (a windowedBy(...) aggregation upstream)`,
        { details: { processor: options.name } },
      )
    }
    const sizeOf = options.sizeOf ?? ((key: K, value: unknown) => estimateBytes(key) + estimateBytes(value) + 8)
    this.buffer = new SuppressBuffer<K, V>(options.keyIdentity ?? stableKey, sizeOf)
  }

  /** How many keys are buffered now (tests and metrics). */
  get bufferedKeys(): number {
    return this.buffer.size
  }

  init(context: ProcessorContext<K, V>): void {
    this.context = context
    this.counters.attach(context)
  }

  process(record: StreamRecord<K, V>): void {
    if (!this.rebuilt) this.rebuild()
    const { key } = record
    if (key === null) {
      this.counters.countSkipped()
      return
    }
    const streamTime = this.counters.streamTimeFor(record)
    const { suppressed } = this.options
    let due: number
    if (suppressed.kind === 'until-window-closes') {
      const { window } = key as Partial<Windowed<unknown>>
      if (typeof window?.start !== 'number' || typeof window.end !== 'number') {
        throw new StreamsError(
          'TOPOLOGY',
          `suppress '${this.options.name}': untilWindowCloses got a key without a window (it needs a windowed table)`,
          { details: { processor: this.options.name } },
        )
      }
      due = this.options.windows!.closeTimeMs(window)
      if (due <= streamTime && this.buffer.get(key) === undefined) {
        this.counters.countDroppedLate()
        return
      }
    } else {
      due = record.timestamp + suppressed.timeLimitMs
    }
    this.buffer.put(key, record.value, record.timestamp, record.headers, due)
    this.emitDue(streamTime)
    this.enforceBounds()
  }

  /**
   * Buffers every window of the upstream store (restored by now: the runtime restores stores
   * before a task processes). A rebuilt entry carries its window's start as its timestamp, the
   * one time it surely holds, since the store keeps no record timestamps.
   */
  private rebuild(): void {
    this.rebuilt = true
    const { rebuildFromStore: storeName, windows } = this.options
    if (storeName === undefined || windows === undefined) return
    const store = this.context.getStateStore<WindowStore<unknown, V> | SessionStore<unknown, V>>(storeName)
    if (store.all === undefined) return
    for (const { key, value } of store.all()) {
      this.buffer.put(key as K, value, key.window.start, [], windows.closeTimeMs(key.window))
    }
  }

  private emitDue(streamTime: number): void {
    for (let next = this.buffer.peek(); next !== undefined && next.dueMs <= streamTime; next = this.buffer.peek()) {
      this.emit(this.buffer.poll()!)
    }
  }

  private enforceBounds(): void {
    const { buffer: config } = this.options.suppressed
    while (this.buffer.size > config.maxRecords || this.buffer.bytes > config.maxBytes) {
      const emitEarly =
        this.options.suppressed.kind === 'until-time-limit' && (config.whenFull ?? 'emit-early') === 'emit-early'
      if (!emitEarly) {
        throw new StreamsError(
          'RUNTIME',
          `suppress '${this.options.name}': buffer full (${this.buffer.size} keys, ${this.buffer.bytes} bytes; ` +
            `limits ${config.maxRecords} keys, ${config.maxBytes} bytes) and it may not emit early`,
          { details: { processor: this.options.name, keys: this.buffer.size, bytes: this.buffer.bytes } },
        )
      }
      this.emit(this.buffer.poll()!)
    }
  }

  private emit(entry: BufferedEntry<K, V>): void {
    if (entry.value === null && this.options.suppressed.kind === 'until-window-closes') return
    this.context.forward({ key: entry.key, value: entry.value, timestamp: entry.timestamp, headers: entry.headers })
  }
}

export function suppressSupplier<K, V>(options: SuppressOptions<K>): ProcessorSupplier<K, V, K, V> {
  return () => new SuppressProcessor<K, V>(options)
}
