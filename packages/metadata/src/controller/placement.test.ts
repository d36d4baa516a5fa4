import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { SluiceError } from '@sluice/protocol'
import { assignReplicas, seededRandomInt } from './placement.js'

describe('assignReplicas (Kafka rack-unaware placement)', () => {
  it('matches Kafka for a fixed start index and shift', () => {
    // Kafka's AdminUtils with brokers 0..4, fixedStartIndex 0 and startPartitionId 0 gives these
    // (AdminRackAwareTest / the algorithm in docs/kafka-facts.md §7.3).
    const got = assignReplicas({
      brokers: [0, 1, 2, 3, 4],
      numPartitions: 10,
      replicationFactor: 3,
      fixedStartIndex: 0,
    })
    expect(got).toEqual([
      [0, 1, 2],
      [1, 2, 3],
      [2, 3, 4],
      [3, 4, 0],
      [4, 0, 1],
      [0, 2, 3],
      [1, 3, 4],
      [2, 4, 0],
      [3, 0, 1],
      [4, 1, 2],
    ])
  })

  it('for every RF 1..n: replicas distinct, known brokers, leaders spread evenly', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer(),
        fc.nat(12),
        (brokers, partitions, seed, rfPick) => {
          const rf = 1 + (rfPick % brokers.length)
          const got = assignReplicas({
            brokers,
            numPartitions: partitions,
            replicationFactor: rf,
            random: seededRandomInt(seed),
          })
          expect(got).toHaveLength(partitions)
          const leaders = new Map<number, number>()
          const replicaCounts = new Map<number, number>()
          for (const replicas of got) {
            expect(replicas).toHaveLength(rf)
            expect(new Set(replicas).size).toBe(rf)
            for (const r of replicas) {
              expect(brokers).toContain(r)
              replicaCounts.set(r, (replicaCounts.get(r) ?? 0) + 1)
            }
            leaders.set(replicas[0]!, (leaders.get(replicas[0]!) ?? 0) + 1)
          }
          // Leaders round-robin: counts differ by at most one, and every broker leads once p >= n.
          const counts = brokers.map((b) => leaders.get(b) ?? 0)
          expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1)
          // Total replicas per broker stay balanced too (within rf).
          const rc = brokers.map((b) => replicaCounts.get(b) ?? 0)
          expect(Math.max(...rc) - Math.min(...rc)).toBeLessThanOrEqual(rf)
        },
      ),
    )
  })

  it('is deterministic for a seed and varies across seeds', () => {
    const req = { brokers: [1, 2, 3, 4], numPartitions: 8, replicationFactor: 2 }
    expect(assignReplicas({ ...req, random: seededRandomInt(7) })).toEqual(
      assignReplicas({ ...req, random: seededRandomInt(7) }),
    )
    const distinct = new Set(
      [1, 2, 3, 4, 5, 6, 7, 8].map((s) => JSON.stringify(assignReplicas({ ...req, random: seededRandomInt(s) }))),
    )
    expect(distinct.size).toBeGreaterThan(1)
  })

  it('continues an existing topic from startPartition', () => {
    const all = assignReplicas({ brokers: [1, 2, 3], numPartitions: 6, replicationFactor: 2, fixedStartIndex: 1 })
    const tail = assignReplicas({
      brokers: [1, 2, 3],
      numPartitions: 3,
      replicationFactor: 2,
      fixedStartIndex: 1,
      startPartition: 3,
    })
    expect(tail).toEqual(all.slice(3))
  })

  it('rejects impossible requests with typed errors', () => {
    const code = (f: () => unknown): string => {
      try {
        f()
        return 'NONE'
      } catch (e) {
        return (e as SluiceError).code
      }
    }
    expect(code(() => assignReplicas({ brokers: [1, 2], numPartitions: 1, replicationFactor: 3 }))).toBe(
      'INVALID_REPLICATION_FACTOR',
    )
    expect(code(() => assignReplicas({ brokers: [1, 2], numPartitions: 1, replicationFactor: 0 }))).toBe(
      'INVALID_REPLICATION_FACTOR',
    )
    expect(code(() => assignReplicas({ brokers: [], numPartitions: 1, replicationFactor: 1 }))).toBe(
      'INVALID_REPLICATION_FACTOR',
    )
    expect(code(() => assignReplicas({ brokers: [1], numPartitions: -1, replicationFactor: 1 }))).toBe(
      'INVALID_PARTITIONS',
    )
  })
})
