/**
 * Suppress's buffer: the latest value of each key, ordered by the stream time at which the key
 * is due (a window's close, or the time limit after the key entered the buffer), oldest first.
 *
 * A key's due time is fixed when it enters the buffer, so a binary heap of keys by
 * (due time, arrival) never needs re-ordering: a later value for a buffered key replaces the
 * value in place. Keys leave only from the front (when due, or early when the buffer is full).
 *
 * The buffer is in memory only. Kafka logs it to a changelog of its own and restores it; here
 * untilWindowCloses rebuilds it from the upstream window or session store (restored from that
 * store's changelog; suppress-processor.ts), and untilTimeLimit loses on a restart what was
 * buffered and not yet emitted (docs/streams.md, Windows).
 */
import { MinHeap } from '@sluice/client/internal'
import type { StreamHeader } from '../api/record.js'

export interface BufferedEntry<K, V> {
  readonly key: K
  /** null: a tombstone (a table delete, or a session merged away). */
  value: V | null
  /** The latest buffered record's timestamp and headers (what an emitted record carries). */
  timestamp: number
  headers: readonly StreamHeader[]
  /** The stream time at which the key is emitted. */
  readonly dueMs: number
  bytes: number
  readonly arrival: number
  readonly id: string
}

export class SuppressBuffer<K, V> {
  private readonly byId = new Map<string, BufferedEntry<K, V>>()
  private readonly heap = new MinHeap<BufferedEntry<K, V>>(
    (a, b) => a.dueMs < b.dueMs || (a.dueMs === b.dueMs && a.arrival < b.arrival),
  )
  private arrivals = 0
  private totalBytes = 0

  constructor(
    private readonly identity: (key: K) => string,
    private readonly sizeOf: (key: K, value: V | null) => number,
  ) {}

  get size(): number {
    return this.byId.size
  }

  get bytes(): number {
    return this.totalBytes
  }

  get(key: K): BufferedEntry<K, V> | undefined {
    return this.byId.get(this.identity(key))
  }

  /** Buffers the key's latest value; `dueMs` counts only when the key is not buffered yet. */
  put(key: K, value: V | null, timestamp: number, headers: readonly StreamHeader[], dueMs: number): void {
    const id = this.identity(key)
    const bytes = this.sizeOf(key, value)
    const existing = this.byId.get(id)
    if (existing !== undefined) {
      this.totalBytes += bytes - existing.bytes
      existing.value = value
      existing.timestamp = timestamp
      existing.headers = headers
      existing.bytes = bytes
      return
    }
    const entry: BufferedEntry<K, V> = { key, value, timestamp, headers, dueMs, bytes, arrival: this.arrivals++, id }
    this.byId.set(id, entry)
    this.totalBytes += bytes
    this.heap.push(entry)
  }

  /** The entry due first, without removing it. */
  peek(): BufferedEntry<K, V> | undefined {
    return this.heap.peek()
  }

  /** Removes and returns the entry due first. */
  poll(): BufferedEntry<K, V> | undefined {
    const first = this.heap.pop()
    if (first === undefined) return undefined
    this.byId.delete(first.id)
    this.totalBytes -= first.bytes
    return first
  }
}
