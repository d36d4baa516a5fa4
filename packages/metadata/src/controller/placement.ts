/**
 * Replica placement: Kafka's rack-unaware algorithm (AdminUtils.assignReplicasToBrokersRackUnaware,
 * docs/kafka-facts.md §7.3), a pure function of its inputs and a seedable random source.
 *
 * With brokers sorted by id (n of them), a random start index and a random shift: partition p's
 * first replica (its preferred leader) is brokers[(p + start) % n], so leaders spread round-robin;
 * the shift grows by one each time p wraps around n, and the j-th follower is
 * brokers[(first + 1 + (shift + j) % (n - 1)) % n], so followers of successive rounds differ.
 * Replicas of one partition are always distinct (the follower offsets 1 + (shift + j) % (n - 1)
 * are distinct for j < n - 1).
 */
import { SluiceError } from '@sluice/protocol'

/** A uniform integer in [0, bound). */
export type RandomInt = (bound: number) => number

export const mathRandomInt: RandomInt = (bound) => Math.floor(Math.random() * bound)

/** mulberry32: a small, fast, seedable PRNG, good enough for placement and tests. */
export function seededRandomInt(seed: number): RandomInt {
  let a = seed >>> 0
  return (bound) => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    const r = ((t ^ (t >>> 14)) >>> 0) / 4294967296
    return Math.floor(r * bound)
  }
}

export interface PlacementRequest {
  readonly brokers: readonly number[]
  readonly numPartitions: number
  readonly replicationFactor: number
  /** First partition id to assign (CreatePartitions continues an existing topic). Default 0. */
  readonly startPartition?: number
  /** Use this start index and shift instead of random ones (Kafka does so when adding partitions). */
  readonly fixedStartIndex?: number
  readonly random?: RandomInt
}

/** Returns one replica list per partition, for partitions startPartition .. startPartition + numPartitions - 1. */
export function assignReplicas(req: PlacementRequest): number[][] {
  const brokers = [...new Set(req.brokers)].sort((x, y) => x - y)
  const n = brokers.length
  const rf = req.replicationFactor
  if (!Number.isInteger(rf) || rf < 1)
    throw new SluiceError('INVALID_REPLICATION_FACTOR', `replication factor ${rf} must be at least 1`)
  if (rf > n)
    throw new SluiceError(
      'INVALID_REPLICATION_FACTOR',
      `replication factor ${rf} is larger than the ${n} available brokers`,
    )
  if (!Number.isInteger(req.numPartitions) || req.numPartitions < 0)
    throw new SluiceError('INVALID_PARTITIONS', `cannot place ${req.numPartitions} partitions`)
  const random = req.random ?? mathRandomInt
  const fixed = req.fixedStartIndex !== undefined && req.fixedStartIndex >= 0 ? req.fixedStartIndex % n : undefined
  const startIndex = fixed ?? random(n)
  let shift = fixed ?? random(n)
  let p = Math.max(0, req.startPartition ?? 0)
  const out: number[][] = []
  for (let i = 0; i < req.numPartitions; i++, p++) {
    if (p > 0 && p % n === 0) shift += 1
    const first = (p + startIndex) % n
    const replicas = [brokers[first]!]
    for (let j = 0; j < rf - 1; j++) {
      replicas.push(brokers[(first + 1 + ((shift + j) % (n - 1))) % n]!)
    }
    out.push(replicas)
  }
  return out
}
