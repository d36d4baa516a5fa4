/**
 * The typed window store: fixed-size windows per key, over the shared bytes stack
 * (layered-store.ts). Bytes keys are key + window start (windowed-key.ts), so one key's windows
 * are one range. Windows whose start is before stream time minus retention are not returned,
 * writes to them are dropped, and a flush purges them (retention.ts).
 */
import type { Windowed } from '../api/record.js'
import type { Serde } from '../api/serde.js'
import type { BytesEngineFactory, BytesEntry } from './bytes-engine.js'
import type { LayerOptions } from './layered-store.js'
import { RetainedWindowedStore } from './retained-windowed-store.js'
import type { KeyValue, WindowEntry, WindowStore } from './store-types.js'
import { MAX_TIME, MIN_TIME, hasKey, keyPart, windowKeyBytes, windowStartOf } from './windowed-key.js'

export class TypedWindowStore<K, V> extends RetainedWindowedStore<K, V> implements WindowStore<K, V> {
  constructor(
    name: string,
    persistent: boolean,
    engineFactory: BytesEngineFactory,
    layerOptions: LayerOptions,
    keySerde: Serde<K>,
    valueSerde: Serde<V>,
    readonly windowSizeMs: number,
    retentionMs: number,
  ) {
    super(name, persistent, engineFactory, layerOptions, keySerde, valueSerde, retentionMs, windowStartOf)
  }

  put(key: K, value: V | null, windowStart: number): void {
    const layer = this.layer()
    if (this.retention.isExpired(windowStart, this.streamTimeMs())) return
    const topic = this.topic()
    const bytes = windowKeyBytes(this.keySerde.serialize(key, topic), windowStart)
    layer.put(bytes, value === null ? null : this.valueSerde.serialize(value, topic), this.writeTimestamp())
    this.retention.wrote(windowStart)
  }

  fetch(key: K, windowStart: number): V | undefined {
    const layer = this.layer()
    if (this.retention.isExpired(windowStart, this.streamTimeMs())) return undefined
    const topic = this.topic()
    const bytes = layer.get(windowKeyBytes(this.keySerde.serialize(key, topic), windowStart))
    return bytes === undefined ? undefined : this.valueSerde.deserialize(bytes, topic)
  }

  fetchRange(key: K, fromStart: number, toStart: number): IterableIterator<WindowEntry<V>> {
    const layer = this.layer()
    const topic = this.topic()
    const keyBytes = this.keySerde.serialize(key, topic)
    const from = Math.max(fromStart, this.retention.cutoff(this.streamTimeMs()))
    if (from > toStart) return [][Symbol.iterator]()
    const range = layer.range(windowKeyBytes(keyBytes, from), windowKeyBytes(keyBytes, toStart))
    return this.entriesOf(range, keyBytes, topic)
  }

  fetchAll(fromStart: number, toStart: number): IterableIterator<KeyValue<Windowed<K>, V>> {
    const layer = this.layer()
    const from = Math.max(fromStart, this.retention.cutoff(this.streamTimeMs()))
    // Keys come first in the bytes, so every key's windows are walked and filtered by start; the
    // order is that of the stored bytes (a key's windows together, oldest first).
    return this.windowsOf(layer.range(), from, toStart, this.topic())
  }

  all(): IterableIterator<KeyValue<Windowed<K>, V>> {
    return this.fetchAll(MIN_TIME, MAX_TIME)
  }

  protected override decodeWindowed(composite: Buffer, topic: string): Windowed<K> {
    const start = windowStartOf(composite)
    return {
      key: this.keySerde.deserialize(keyPart(composite, 1), topic),
      window: { start, end: start + this.windowSizeMs },
    }
  }

  private *entriesOf(
    range: IterableIterator<BytesEntry<Buffer>>,
    keyBytes: Buffer,
    topic: string,
  ): IterableIterator<WindowEntry<V>> {
    for (const [composite, value] of range) {
      if (!hasKey(composite, keyBytes, 1)) continue
      yield { windowStart: windowStartOf(composite), value: this.valueSerde.deserialize(value, topic) }
    }
  }

  private *windowsOf(
    range: IterableIterator<BytesEntry<Buffer>>,
    fromStart: number,
    toStart: number,
    topic: string,
  ): IterableIterator<KeyValue<Windowed<K>, V>> {
    for (const [composite, value] of range) {
      const start = windowStartOf(composite)
      if (start < fromStart || start > toStart) continue
      yield { key: this.decodeWindowed(composite, topic), value: this.valueSerde.deserialize(value, topic) }
    }
  }
}
