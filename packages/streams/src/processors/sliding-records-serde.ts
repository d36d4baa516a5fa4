/**
 * The value serde of a sliding aggregation's raw records store (`<store>-sliding-records`):
 * the values a key had at one timestamp, in arrival order, each written with the user's value
 * serde and a 4-byte big-endian length before it. The DSL builds that store with this serde.
 */
import type { Serde } from '../api/serde.js'
import { StreamsError } from '../errors.js'

export function slidingRecordsSerde<V>(valueSerde: Serde<V>): Serde<V[]> {
  return {
    name: `list(${valueSerde.name})`,
    serialize(values: V[], topic: string): Buffer {
      const parts: Buffer[] = []
      for (const value of values) {
        const bytes = valueSerde.serialize(value, topic)
        const length = Buffer.alloc(4)
        length.writeUInt32BE(bytes.length)
        parts.push(length, bytes)
      }
      return Buffer.concat(parts)
    },
    deserialize(data: Buffer, topic: string): V[] {
      const values: V[] = []
      let offset = 0
      while (offset < data.length) {
        if (offset + 4 > data.length) throw truncated(topic)
        const length = data.readUInt32BE(offset)
        offset += 4
        if (offset + length > data.length) throw truncated(topic)
        values.push(valueSerde.deserialize(data.subarray(offset, offset + length), topic))
        offset += length
      }
      return values
    },
  }
}

function truncated(topic: string): StreamsError {
  return new StreamsError('SERDE', `sliding records: a truncated list of values (topic '${topic}')`, {
    details: { topic },
  })
}
