/**
 * The typed session store: sessions [start, end] (end inclusive) per key, over the shared bytes
 * stack (layered-store.ts). Bytes keys are key + end + start (windowed-key.ts), so the sessions
 * of a key that end at or after a time are one range. Sessions that end before stream time
 * minus retention are not returned, writes to them are dropped, and a flush purges them
 * (retention.ts).
 */
import type { Windowed } from '../api/record.js'
import type { Serde } from '../api/serde.js'
import type { BytesEngineFactory, BytesEntry } from './bytes-engine.js'
import type { LayerOptions } from './layered-store.js'
import { RetainedWindowedStore } from './retained-windowed-store.js'
import type { KeyValue, SessionStore } from './store-types.js'
import { MAX_TIME, MIN_TIME, hasKey, keyPart, sessionEndOf, sessionKeyBytes, sessionStartOf } from './windowed-key.js'

export class TypedSessionStore<K, V> extends RetainedWindowedStore<K, V> implements SessionStore<K, V> {
  constructor(
    name: string,
    persistent: boolean,
    engineFactory: BytesEngineFactory,
    layerOptions: LayerOptions,
    keySerde: Serde<K>,
    valueSerde: Serde<V>,
    retentionMs: number,
  ) {
    super(name, persistent, engineFactory, layerOptions, keySerde, valueSerde, retentionMs, sessionEndOf)
  }

  put(session: Windowed<K>, value: V): void {
    this.write(session, value)
  }

  remove(session: Windowed<K>): void {
    this.write(session, null)
  }

  findSessions(key: K, earliestEnd: number, latestStart: number): IterableIterator<KeyValue<Windowed<K>, V>> {
    const layer = this.layer()
    const topic = this.topic()
    const keyBytes = this.keySerde.serialize(key, topic)
    const fromEnd = Math.max(earliestEnd, this.retention.cutoff(this.streamTimeMs()))
    const range = layer.range(
      sessionKeyBytes(keyBytes, MIN_TIME, fromEnd),
      sessionKeyBytes(keyBytes, MAX_TIME, MAX_TIME),
    )
    return this.sessionsOf(range, keyBytes, latestStart, topic)
  }

  fetch(key: K): IterableIterator<KeyValue<Windowed<K>, V>> {
    return this.findSessions(key, MIN_TIME, MAX_TIME)
  }

  /** Added by the windows part: every key's sessions in retention (suppress rebuilds its buffer from it). */
  all(): IterableIterator<KeyValue<Windowed<K>, V>> {
    const layer = this.layer()
    return this.everySession(layer.range(), this.retention.cutoff(this.streamTimeMs()), this.topic())
  }

  private write(session: Windowed<K>, value: V | null): void {
    const layer = this.layer()
    const { start, end } = session.window
    if (this.retention.isExpired(end, this.streamTimeMs())) return
    const topic = this.topic()
    const bytes = sessionKeyBytes(this.keySerde.serialize(session.key, topic), start, end)
    layer.put(bytes, value === null ? null : this.valueSerde.serialize(value, topic), this.writeTimestamp())
    this.retention.wrote(end)
  }

  protected override decodeWindowed(composite: Buffer, topic: string): Windowed<K> {
    return {
      key: this.keySerde.deserialize(keyPart(composite, 2), topic),
      window: { start: sessionStartOf(composite), end: sessionEndOf(composite) },
    }
  }

  private *everySession(
    range: IterableIterator<BytesEntry<Buffer>>,
    cutoff: number,
    topic: string,
  ): IterableIterator<KeyValue<Windowed<K>, V>> {
    for (const [composite, value] of range) {
      if (sessionEndOf(composite) < cutoff) continue
      yield { key: this.decodeWindowed(composite, topic), value: this.valueSerde.deserialize(value, topic) }
    }
  }

  private *sessionsOf(
    range: IterableIterator<BytesEntry<Buffer>>,
    keyBytes: Buffer,
    latestStart: number,
    topic: string,
  ): IterableIterator<KeyValue<Windowed<K>, V>> {
    for (const [composite, value] of range) {
      if (!hasKey(composite, keyBytes, 2) || sessionStartOf(composite) > latestStart) continue
      yield { key: this.decodeWindowed(composite, topic), value: this.valueSerde.deserialize(value, topic) }
    }
  }
}
