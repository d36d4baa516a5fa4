/**
 * Kafka's default key partitioner, bit for bit: Utils.murmur2 (MurmurHash2, seed 0x9747b28c,
 * 4-byte little-endian words, int32 wrap-around) and `toPositive(murmur2(key)) % numPartitions`
 * (BuiltInPartitioner.partitionForKey). Matching Java exactly keeps keys on the same partition
 * whichever client produced them (docs/kafka-facts.md §6.1; librdkafka's default differs).
 */
import { SluiceError } from './errors.js'

const SEED = 0x9747b28c
const M = 0x5bd1e995
const R = 24

/** Java-compatible MurmurHash2: a signed int32. */
export function murmur2(data: Uint8Array): number {
  const length = data.length
  let h = SEED ^ length
  const words = length >>> 2
  for (let i = 0; i < words; i++) {
    const o = i * 4
    let k = data[o]! | (data[o + 1]! << 8) | (data[o + 2]! << 16) | (data[o + 3]! << 24)
    k = Math.imul(k, M)
    k ^= k >>> R
    k = Math.imul(k, M)
    h = Math.imul(h, M)
    h ^= k
  }
  // The tail: Java's switch falls through from 3 to 2 to 1.
  const tail = length & ~3
  const rest = length & 3
  if (rest === 3) h ^= data[tail + 2]! << 16
  if (rest >= 2) h ^= data[tail + 1]! << 8
  if (rest >= 1) {
    h ^= data[tail]!
    h = Math.imul(h, M)
  }
  h ^= h >>> 13
  h = Math.imul(h, M)
  h ^= h >>> 15
  return h | 0
}

/** Kafka's Utils.toPositive: clears the sign bit (not Math.abs, which breaks on -2^31). */
export function toPositive(n: number): number {
  return n & 0x7fffffff
}

/** The partition Kafka's default partitioner picks for a non-null key. */
export function partitionForKey(key: Uint8Array, numPartitions: number): number {
  if (!Number.isInteger(numPartitions) || numPartitions < 1) {
    throw new SluiceError('INVALID_ARGUMENT', `numPartitions must be a positive integer, got ${numPartitions}`)
  }
  return toPositive(murmur2(key)) % numPartitions
}
