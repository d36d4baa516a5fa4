/**
 * A serde for a list of values, made from the values' own serde. A stream–stream join store
 * holds, per key and timestamp, every record that arrived with that key and timestamp (two
 * records of one side may share both; a window store keeps one value per key and window start,
 * so the join stores a list there instead of losing one of them).
 *
 * Bytes: for each value a 4-byte big-endian length, then the value's bytes.
 */
import type { Serde } from '../api/serde.js'
import { StreamsError } from '../errors.js'

export function valueListSerde<V>(valueSerde: Serde<V>): Serde<V[]> {
  return {
    name: `list<${valueSerde.name}>`,
    serialize(values, topic) {
      const parts: Buffer[] = []
      for (const value of values) {
        const bytes = valueSerde.serialize(value, topic)
        const length = Buffer.allocUnsafe(4)
        length.writeUInt32BE(bytes.length)
        parts.push(length, bytes)
      }
      return Buffer.concat(parts)
    },
    deserialize(data, topic) {
      const values: V[] = []
      let offset = 0
      while (offset < data.length) {
        if (offset + 4 > data.length) throw truncated(valueSerde.name)
        const length = data.readUInt32BE(offset)
        offset += 4
        if (offset + length > data.length) throw truncated(valueSerde.name)
        values.push(valueSerde.deserialize(data.subarray(offset, offset + length), topic))
        offset += length
      }
      return values
    },
  }
}

function truncated(name: string): StreamsError {
  return new StreamsError('SERDE', `a join store's list of '${name}' values is truncated`)
}
