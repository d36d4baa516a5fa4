/**
 * The outer-shared store of a left or outer stream–stream join: the records that have not
 * matched yet, waiting for their window to close so their "no match" result can be emitted
 * (Kafka 3.1's fix for spurious left/outer results, KIP-633). It is a logged key-value store,
 * so the waiting records survive a crash like the join's window stores do.
 *
 * Keys sort by timestamp first (then side, then the record key's bytes), so the records whose
 * window closes first are at the front and emitting is a walk from the start that stops early.
 * A key holds every waiting record of one side with that record key and timestamp.
 */
import type { Serde } from '../api/serde.js'
import { StreamsError } from '../errors.js'
import { TIME_BYTES, readTime, writeTime } from '../state/windowed-key.js'
import type { JoinSide } from './join-types.js'
import { valueListSerde } from './value-list-serde.js'

export interface PendingKey<K> {
  readonly timestamp: number
  readonly side: JoinSide
  readonly key: K
}

export type PendingValues<V1, V2> =
  | { readonly side: 'left'; readonly values: V1[] }
  | { readonly side: 'right'; readonly values: V2[] }

const LEFT = 0
const RIGHT = 1

/** Stands in for a record key in a range bound: it serializes to nothing (pendingRangeEnd). */
const BOUND: unique symbol = Symbol('pending-join-range-bound')

/**
 * The inclusive upper bound of a range over exactly the entries with a timestamp before
 * `timestamp`: its bytes are the timestamp alone, which sort after every key of an earlier
 * timestamp and before every key (time + side + key, longer) of this one.
 */
export function pendingRangeEnd<K>(timestamp: number): PendingKey<K> {
  return { timestamp, side: 'left', key: BOUND as unknown as K }
}

export function pendingKeySerde<K>(keySerde: Serde<K>): Serde<PendingKey<K>> {
  return {
    name: `pending-join-key<${keySerde.name}>`,
    serialize(pending, topic) {
      if ((pending.key as unknown) === BOUND) {
        const bound = Buffer.allocUnsafe(TIME_BYTES)
        writeTime(bound, 0, pending.timestamp)
        return bound
      }
      const key = keySerde.serialize(pending.key, topic)
      const out = Buffer.allocUnsafe(TIME_BYTES + 1 + key.length)
      writeTime(out, 0, pending.timestamp)
      out[TIME_BYTES] = pending.side === 'left' ? LEFT : RIGHT
      key.copy(out, TIME_BYTES + 1)
      return out
    },
    deserialize(data, topic) {
      if (data.length < TIME_BYTES + 1) throw new StreamsError('SERDE', 'a pending join key is truncated')
      return {
        timestamp: readTime(data, 0),
        side: sideOf(data[TIME_BYTES]),
        key: keySerde.deserialize(data.subarray(TIME_BYTES + 1), topic),
      }
    },
  }
}

export function pendingValuesSerde<V1, V2>(leftSerde: Serde<V1>, rightSerde: Serde<V2>): Serde<PendingValues<V1, V2>> {
  const lefts = valueListSerde(leftSerde)
  const rights = valueListSerde(rightSerde)
  return {
    name: `pending-join-values<${leftSerde.name},${rightSerde.name}>`,
    serialize(pending, topic) {
      const tag = Buffer.of(pending.side === 'left' ? LEFT : RIGHT)
      const body =
        pending.side === 'left' ? lefts.serialize(pending.values, topic) : rights.serialize(pending.values, topic)
      return Buffer.concat([tag, body])
    },
    deserialize(data, topic) {
      if (data.length < 1) throw new StreamsError('SERDE', 'a pending join value is truncated')
      const body = data.subarray(1)
      return sideOf(data[0]) === 'left'
        ? { side: 'left', values: lefts.deserialize(body, topic) }
        : { side: 'right', values: rights.deserialize(body, topic) }
    },
  }
}

function sideOf(tag: number | undefined): JoinSide {
  if (tag === LEFT) return 'left'
  if (tag === RIGHT) return 'right'
  throw new StreamsError('SERDE', `a pending join entry has an unknown side tag ${String(tag)}`)
}
