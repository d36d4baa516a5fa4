/**
 * Which partition a record goes to (docs/kafka-facts.md §6.2), in this order:
 * 1. an explicit `partition` on the record;
 * 2. the user's partitioner function;
 * 3. keyed records: toPositive(murmur2(key)) % partitionCount over all partitions, exactly as
 *    Java's client, so keys land where Kafka clients would put them;
 * 4. keyless records: 'sticky' (KIP-480: keep one random partition until its open batch is gone,
 *    i.e. full or drained to the network, then move to another random partition) or
 *    'round-robin' (one record per partition in turn).
 * State is per topic and lives only as long as the producer.
 */
import { partitionForKey } from '@sluice/protocol'

export interface PartitionerArgs {
  topic: string
  key: Buffer | null
  value: Buffer | null
  partitionCount: number
}

/** A custom partitioner; must return an integer in [0, partitionCount). */
export type Partitioner = (args: PartitionerArgs) => number

export type KeylessStrategy = 'sticky' | 'round-robin'

export interface PartitionChooserOptions {
  partitioner?: Partitioner
  keylessStrategy: KeylessStrategy
  /** @internal visible for testing */
  random?: () => number
}

interface StickyState {
  partition: number
  used: boolean
}

export class PartitionChooser {
  private readonly sticky = new Map<string, StickyState>()
  private readonly roundRobin = new Map<string, number>()
  private readonly random: () => number

  constructor(private readonly options: PartitionChooserOptions) {
    this.random = options.random ?? Math.random
  }

  /**
   * `hasOpenBatch(p)` tells whether partition p of the topic still has an open (not full, not
   * yet sent) batch; the sticky strategy moves on only once it has none.
   */
  choose(
    topic: string,
    record: { key: Buffer | null; value: Buffer | null; partition?: number },
    partitionCount: number,
    hasOpenBatch: (partition: number) => boolean,
  ): number {
    if (record.partition !== undefined) return record.partition
    if (this.options.partitioner !== undefined) {
      const p = this.options.partitioner({ topic, key: record.key, value: record.value, partitionCount })
      if (!Number.isInteger(p) || p < 0 || p >= partitionCount) {
        throw new RangeError(
          `partitioner returned ${String(p)} for topic ${topic}, expected an integer in [0, ${partitionCount})`,
        )
      }
      return p
    }
    if (record.key !== null) return partitionForKey(record.key, partitionCount)
    return this.options.keylessStrategy === 'sticky'
      ? this.stickyPartition(topic, partitionCount, hasOpenBatch)
      : this.nextRoundRobin(topic, partitionCount)
  }

  private stickyPartition(topic: string, partitionCount: number, hasOpenBatch: (partition: number) => boolean): number {
    let s = this.sticky.get(topic)
    if (s === undefined || s.partition >= partitionCount) {
      s = { partition: this.randomPartition(partitionCount, -1), used: false }
      this.sticky.set(topic, s)
    } else if (s.used && !hasOpenBatch(s.partition)) {
      s = { partition: this.randomPartition(partitionCount, s.partition), used: false }
      this.sticky.set(topic, s)
    }
    s.used = true
    return s.partition
  }

  private nextRoundRobin(topic: string, partitionCount: number): number {
    const n = this.roundRobin.get(topic) ?? Math.floor(this.random() * partitionCount)
    this.roundRobin.set(topic, (n + 1) % partitionCount)
    return n % partitionCount
  }

  /** A random partition other than `previous` (when there is another one). */
  private randomPartition(partitionCount: number, previous: number): number {
    if (partitionCount <= 1) return 0
    if (previous < 0) return Math.floor(this.random() * partitionCount)
    const p = Math.floor(this.random() * (partitionCount - 1))
    return p >= previous ? p + 1 : p
  }
}
