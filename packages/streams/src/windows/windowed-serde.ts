/**
 * The serde of a windowed table's keys (Kafka's WindowedSerdes): the inner key's bytes, then
 * the window's start and end as 8-byte big-endian signed integers. A windowed table's
 * `toStream().to(topic)` writes its keys with it unless given another key serde.
 */
import type { Windowed } from '../api/record.js'
import type { Serde } from '../api/serde.js'
import { StreamsError } from '../errors.js'

const TIMES_BYTES = 16

export function windowedSerde<K>(inner: Serde<K>): Serde<Windowed<K>> {
  return {
    name: `windowed(${inner.name})`,
    serialize(windowed: Windowed<K>, topic: string): Buffer {
      const key = inner.serialize(windowed.key, topic)
      const out = Buffer.alloc(key.length + TIMES_BYTES)
      key.copy(out)
      out.writeBigInt64BE(BigInt(windowed.window.start), key.length)
      out.writeBigInt64BE(BigInt(windowed.window.end), key.length + 8)
      return out
    },
    deserialize(data: Buffer, topic: string): Windowed<K> {
      if (data.length < TIMES_BYTES) {
        throw new StreamsError('SERDE', `serde 'windowed(${inner.name})' (topic '${topic}'): shorter than a window`, {
          details: { serde: `windowed(${inner.name})`, topic },
        })
      }
      const at = data.length - TIMES_BYTES
      return {
        key: inner.deserialize(data.subarray(0, at), topic),
        window: { start: Number(data.readBigInt64BE(at)), end: Number(data.readBigInt64BE(at + 8)) },
      }
    },
  }
}
