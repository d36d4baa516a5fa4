/**
 * Change logging: every write that reaches the layer (the cache's flushes and evictions, or
 * every write when the store does not cache) goes to the engine and then to the store's
 * changelog, so the changelog can rebuild the engine. Restores write to the engine directly and
 * are never logged again (layered-store.ts).
 */
import type { BytesEngine, BytesEntry, BytesLayer } from './bytes-engine.js'
import type { ChangelogWriter } from './store-types.js'

export class ChangeLoggingLayer implements BytesLayer {
  constructor(
    private readonly under: BytesEngine,
    /** Absent when the runtime gives the store no changelog (a standby applying, a test). */
    private readonly changelog: ChangelogWriter | undefined,
  ) {}

  get(key: Buffer): Buffer | undefined {
    return this.under.get(key)
  }

  put(key: Buffer, value: Buffer | null, timestampMs: number): void {
    this.under.put(key, value, timestampMs)
    this.changelog?.send({ key, value, timestamp: timestampMs })
  }

  range(from?: Buffer, to?: Buffer): IterableIterator<BytesEntry<Buffer>> {
    return this.under.range(from, to)
  }

  approximateNumEntries(): number {
    return this.under.approximateNumEntries()
  }

  flush(): void {
    this.under.flush()
  }

  close(): void {
    this.under.close()
  }
}
