/**
 * What the window store and the session store share: a layered store (layered-store.ts) of
 * windowed keys, whose entries expire by a time read from their key bytes (a window's start, a
 * session's end; retention.ts), and whose flush listener hands out decoded windowed keys.
 * Each store says only how a key's bytes decode and which time in them retention judges.
 */
import type { Windowed } from '../api/record.js'
import type { Serde } from '../api/serde.js'
import type { BytesEngineFactory } from './bytes-engine.js'
import { type LayerOptions, LayeredStore } from './layered-store.js'
import { Retention } from './retention.js'
import type { ChangelogRecord, FlushListener } from './store-types.js'

export abstract class RetainedWindowedStore<K, V> extends LayeredStore {
  protected readonly retention: Retention

  constructor(
    name: string,
    persistent: boolean,
    engineFactory: BytesEngineFactory,
    layerOptions: LayerOptions,
    protected readonly keySerde: Serde<K>,
    protected readonly valueSerde: Serde<V>,
    readonly retentionMs: number,
    private readonly timeOf: (keyBytes: Buffer) => number,
  ) {
    super(name, persistent, engineFactory, layerOptions)
    this.retention = new Retention(retentionMs, timeOf)
  }

  /** The windowed key its stored bytes stand for. */
  protected abstract decodeWindowed(keyBytes: Buffer, topic: string): Windowed<K>

  setFlushListener(listener: FlushListener<Windowed<K>, V> | undefined): boolean {
    if (listener === undefined) return this.setCacheListener(undefined)
    return this.setCacheListener((entries) => {
      const topic = this.topic()
      const value = (bytes: Buffer | null): V | null =>
        bytes === null ? null : this.valueSerde.deserialize(bytes, topic)
      listener(
        entries.map((entry) => ({
          key: this.decodeWindowed(entry.key, topic),
          newValue: value(entry.newValue),
          oldValue: value(entry.oldValue),
          timestamp: entry.timestampMs,
        })),
      )
    })
  }

  protected override opened(): void {
    this.retention.opened(this.engine())
  }

  protected override restored(records: readonly ChangelogRecord[]): void {
    for (const record of records) this.retention.wrote(this.timeOf(record.key))
  }

  protected override flushed(): void {
    this.retention.purge(this.engine(), this.streamTimeMs())
  }
}
