/**
 * A table row with the timestamp of the record that wrote it. The table–table join keeps its
 * rows this way so a join result can carry the later timestamp of its two rows (as Kafka's
 * timestamped stores do); a stream–table join needs only the value (its result takes the
 * stream record's timestamp).
 *
 * Bytes: the 8-byte timestamp (windowed-key.ts' encoding), then the value's bytes.
 */
import type { Serde } from '../api/serde.js'
import { StreamsError } from '../errors.js'
import { TIME_BYTES, readTime, writeTime } from '../state/windowed-key.js'

export interface TimestampedValue<V> {
  readonly value: V
  readonly timestamp: number
}

export function timestampedValueSerde<V>(valueSerde: Serde<V>): Serde<TimestampedValue<V>> {
  return {
    name: `timestamped<${valueSerde.name}>`,
    serialize(row, topic) {
      const value = valueSerde.serialize(row.value, topic)
      const out = Buffer.allocUnsafe(TIME_BYTES + value.length)
      writeTime(out, 0, row.timestamp)
      value.copy(out, TIME_BYTES)
      return out
    },
    deserialize(data, topic) {
      if (data.length < TIME_BYTES)
        throw new StreamsError('SERDE', `a timestamped '${valueSerde.name}' row is truncated`)
      return { timestamp: readTime(data, 0), value: valueSerde.deserialize(data.subarray(TIME_BYTES), topic) }
    },
  }
}
