/**
 * The write cache: absorbs repeated writes to a key between flushes, so a key updated a
 * thousand times between two commits costs one engine write and one changelog record.
 *
 * It holds written entries only (reads that miss go below and are not cached). Its size is
 * bounded in bytes (key + value + a fixed overhead per entry); when a write takes it over the
 * bound, the least recently written entries are evicted: written below (so logged) and reported
 * to the flush listener, as a flush would. flush() writes every entry below, oldest write first,
 * then flushes the layer below.
 *
 * The listener gets, per flushed key, the new value and the value below before the write (Kafka's
 * cache forwarding: the DSL sends table updates downstream on flush, with old values).
 */
import type { BytesEntry, BytesLayer } from './bytes-engine.js'
import { mergeShadowed } from './merge-ranges.js'
import { SortedBytesMap } from './sorted-bytes-map.js'

/** Bytes counted per entry on top of its key and value (the slot, the map entries, the strings). */
const ENTRY_OVERHEAD_BYTES = 64

export const DEFAULT_CACHE_MAX_BYTES = 10 * 1024 * 1024

export interface CacheFlushEntry {
  readonly key: Buffer
  /** null: the key was deleted. */
  readonly newValue: Buffer | null
  /** The value below before this write; null when there was none. */
  readonly oldValue: Buffer | null
  readonly timestampMs: number
}

export type CacheFlushListener = (entries: readonly CacheFlushEntry[]) => void

interface CacheSlot {
  readonly key: Buffer
  value: Buffer | null
  timestampMs: number
}

export class CachingLayer implements BytesLayer {
  /** Insertion order is write order: a rewrite moves the key to the end (least recent first). */
  private lru = new Map<string, CacheSlot>()
  private sorted = new SortedBytesMap<CacheSlot>()
  private bytes = 0
  private listener: CacheFlushListener | undefined

  constructor(
    private readonly under: BytesLayer,
    readonly maxBytes: number = DEFAULT_CACHE_MAX_BYTES,
  ) {}

  setFlushListener(listener: CacheFlushListener | undefined): void {
    this.listener = listener
  }

  /** Bytes the cache counts as held now (for tests and metrics). */
  get sizeBytes(): number {
    return this.bytes
  }

  get entryCount(): number {
    return this.lru.size
  }

  get(key: Buffer): Buffer | undefined {
    const slot = this.lru.get(key.toString('latin1'))
    if (slot !== undefined) return slot.value ?? undefined
    return this.under.get(key)
  }

  put(key: Buffer, value: Buffer | null, timestampMs: number): void {
    const id = key.toString('latin1')
    const slot = this.lru.get(id)
    if (slot !== undefined) {
      this.bytes += (value?.length ?? 0) - (slot.value?.length ?? 0)
      slot.value = value
      slot.timestampMs = timestampMs
      this.lru.delete(id)
      this.lru.set(id, slot)
    } else {
      const fresh: CacheSlot = { key, value, timestampMs }
      this.lru.set(id, fresh)
      this.sorted.set(key, fresh)
      this.bytes += key.length + (value?.length ?? 0) + ENTRY_OVERHEAD_BYTES
    }
    if (this.bytes > this.maxBytes) this.evict()
  }

  range(from?: Buffer, to?: Buffer): IterableIterator<BytesEntry<Buffer>> {
    const upper = mapValues(this.sorted.range(from, to))
    return mergeShadowed(upper, this.under.range(from, to))
  }

  /** Below plus keys only the cache has (a cached delete of a key below may make it an overestimate). */
  approximateNumEntries(): number {
    return this.under.approximateNumEntries() + this.lru.size
  }

  flush(): void {
    // Take the entries and empty the cache first: a listener that writes to this store while
    // its updates are forwarded writes into a fresh cache, not into the one being walked.
    const slots = [...this.lru.values()]
    this.lru = new Map()
    this.sorted = new SortedBytesMap()
    this.bytes = 0
    this.writeBelow(slots)
    this.under.flush()
  }

  close(): void {
    this.lru = new Map()
    this.sorted = new SortedBytesMap()
    this.bytes = 0
    this.under.close()
  }

  private evict(): void {
    const evicted: CacheSlot[] = []
    for (const [id, slot] of this.lru) {
      if (this.bytes <= this.maxBytes) break
      this.lru.delete(id)
      this.sorted.delete(slot.key)
      this.bytes -= slot.key.length + (slot.value?.length ?? 0) + ENTRY_OVERHEAD_BYTES
      evicted.push(slot)
    }
    this.writeBelow(evicted)
  }

  private writeBelow(slots: readonly CacheSlot[]): void {
    if (slots.length === 0) return
    const listener = this.listener
    const entries: CacheFlushEntry[] = []
    for (const slot of slots) {
      // The old value is read only when someone listens (one more read per flushed key).
      const oldValue = listener === undefined ? null : (this.under.get(slot.key) ?? null)
      this.under.put(slot.key, slot.value, slot.timestampMs)
      if (listener !== undefined) {
        entries.push({ key: slot.key, newValue: slot.value, oldValue, timestampMs: slot.timestampMs })
      }
    }
    if (listener !== undefined) listener(entries)
  }
}

function* mapValues(range: IterableIterator<BytesEntry<CacheSlot>>): IterableIterator<BytesEntry<Buffer | null>> {
  for (const [key, slot] of range) yield [key, slot.value]
}
