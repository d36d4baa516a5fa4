/**
 * The bytes level every store is built from (store-types.ts names the layers). A `BytesLayer` is
 * what each layer offers the one above it: the engine at the bottom, then change logging, then
 * the write cache. Key-value, window and session stores all sit on the same stack and differ
 * only in how they turn their keys into bytes.
 */
import type { BytesEntry } from './sorted-bytes-map.js'

export type { BytesEntry } from './sorted-bytes-map.js'

export interface BytesLayer {
  get(key: Buffer): Buffer | undefined
  /** `null` deletes. `timestampMs` is the time the changelog record carries (engines ignore it). */
  put(key: Buffer, value: Buffer | null, timestampMs: number): void
  /** Keys in [from, to], both inclusive, either may be omitted, in Buffer.compare order. */
  range(from?: Buffer, to?: Buffer): IterableIterator<BytesEntry<Buffer>>
  approximateNumEntries(): number
  /** Writes down what the layer holds (the cache empties; the engine makes its writes durable). */
  flush(): void
  close(): void
}

/** The innermost layer: where the bytes live. */
export interface BytesEngine extends BytesLayer {
  readonly persistent: boolean
  /** Opens the engine; a persistent engine keeps its files in `dir` (an in-memory one ignores it). */
  open(dir: string): void
}

/** Makes a fresh engine for one store instance (a task never shares an engine). */
export type BytesEngineFactory = () => BytesEngine
