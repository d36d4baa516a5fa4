/**
 * Fixed-width numbers in big-endian order, as Kafka's IntegerSerde, LongSerde and DoubleSerde
 * write them, so topics written by Java applications read the same. Big-endian also makes the
 * bytes of non-negative integers sort like the numbers (store ranges rely on that).
 */
import type { Serde } from '../api/serde.js'
import { serdeError } from './serde-error.js'

function checkLength(name: string, data: Buffer, topic: string, length: number): void {
  if (data.length !== length) throw serdeError(name, topic, `expected ${length} bytes, got ${data.length}`)
}

export const int32Serde: Serde<number> = {
  name: 'int32',
  serialize(value, topic) {
    if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) {
      throw serdeError('int32', topic, `${String(value)} is not a 32-bit integer`)
    }
    const out = Buffer.allocUnsafe(4)
    out.writeInt32BE(value)
    return out
  },
  deserialize(data, topic) {
    checkLength('int32', data, topic, 4)
    return data.readInt32BE(0)
  },
}

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

export const int64Serde: Serde<bigint> = {
  name: 'int64',
  serialize(value, topic) {
    if (typeof value !== 'bigint' || value < INT64_MIN || value > INT64_MAX) {
      throw serdeError('int64', topic, `${String(value)} is not a 64-bit integer (a bigint)`)
    }
    const out = Buffer.allocUnsafe(8)
    out.writeBigInt64BE(value)
    return out
  },
  deserialize(data, topic) {
    checkLength('int64', data, topic, 8)
    return data.readBigInt64BE(0)
  },
}

/**
 * The int64 wire format read as a JS number: what count() stores, since a count is far below
 * 2^53 and a number is what a TypeScript user wants to compare and add. Values beyond the
 * safe-integer range are errors rather than silently rounded.
 */
export const longSerde: Serde<number> = {
  name: 'long',
  serialize(value, topic) {
    if (!Number.isSafeInteger(value)) throw serdeError('long', topic, `${String(value)} is not a safe integer`)
    const out = Buffer.allocUnsafe(8)
    out.writeBigInt64BE(BigInt(value))
    return out
  },
  deserialize(data, topic) {
    checkLength('long', data, topic, 8)
    const value = data.readBigInt64BE(0)
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw serdeError('long', topic, `${value} is beyond the safe-integer range (use int64)`)
    }
    return Number(value)
  },
}

export const doubleSerde: Serde<number> = {
  name: 'double',
  serialize(value, topic) {
    if (typeof value !== 'number') throw serdeError('double', topic, `expected a number, got ${typeof value}`)
    const out = Buffer.allocUnsafe(8)
    out.writeDoubleBE(value)
    return out
  },
  deserialize(data, topic) {
    checkLength('double', data, topic, 8)
    return data.readDoubleBE(0)
  },
}
