/**
 * The typed key-value store: two serdes over the shared bytes stack (layered-store.ts). Keys
 * are ordered by their serialized bytes; get and range deserialize what they return.
 */
import type { Serde } from '../api/serde.js'
import type { BytesEngineFactory } from './bytes-engine.js'
import { type LayerOptions, LayeredStore } from './layered-store.js'
import type { BytesEntry } from './sorted-bytes-map.js'
import type { FlushListener, KeyValue, KeyValueStore } from './store-types.js'

export class TypedKeyValueStore<K, V> extends LayeredStore implements KeyValueStore<K, V> {
  constructor(
    name: string,
    persistent: boolean,
    engineFactory: BytesEngineFactory,
    layerOptions: LayerOptions,
    private readonly keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
  ) {
    super(name, persistent, engineFactory, layerOptions)
  }

  get(key: K): V | undefined {
    const bytes = this.layer().get(this.keySerde.serialize(key, this.topic()))
    return bytes === undefined ? undefined : this.valueSerde.deserialize(bytes, this.topic())
  }

  range(from?: K, to?: K): IterableIterator<KeyValue<K, V>> {
    const topic = this.topic()
    const fromBytes = from === undefined ? undefined : this.keySerde.serialize(from, topic)
    const toBytes = to === undefined ? undefined : this.keySerde.serialize(to, topic)
    return this.typed(this.layer().range(fromBytes, toBytes), topic)
  }

  all(): IterableIterator<KeyValue<K, V>> {
    return this.typed(this.layer().range(), this.topic())
  }

  approximateNumEntries(): number {
    return this.layer().approximateNumEntries()
  }

  put(key: K, value: V): void {
    const topic = this.topic()
    this.layer().put(
      this.keySerde.serialize(key, topic),
      this.valueSerde.serialize(value, topic),
      this.writeTimestamp(),
    )
  }

  putIfAbsent(key: K, value: V): V | undefined {
    const existing = this.get(key)
    if (existing !== undefined) return existing
    this.put(key, value)
    return undefined
  }

  delete(key: K): V | undefined {
    const topic = this.topic()
    const keyBytes = this.keySerde.serialize(key, topic)
    const layer = this.layer()
    const old = layer.get(keyBytes)
    if (old === undefined) return undefined
    layer.put(keyBytes, null, this.writeTimestamp())
    return this.valueSerde.deserialize(old, topic)
  }

  setFlushListener(listener: FlushListener<K, V> | undefined): boolean {
    if (listener === undefined) return this.setCacheListener(undefined)
    return this.setCacheListener((entries) => {
      const topic = this.topic()
      const value = (bytes: Buffer | null): V | null =>
        bytes === null ? null : this.valueSerde.deserialize(bytes, topic)
      listener(
        entries.map((entry) => ({
          key: this.keySerde.deserialize(entry.key, topic),
          newValue: value(entry.newValue),
          oldValue: value(entry.oldValue),
          timestamp: entry.timestampMs,
        })),
      )
    })
  }

  private *typed(range: IterableIterator<BytesEntry<Buffer>>, topic: string): IterableIterator<KeyValue<K, V>> {
    for (const [key, value] of range) {
      yield { key: this.keySerde.deserialize(key, topic), value: this.valueSerde.deserialize(value, topic) }
    }
  }
}
