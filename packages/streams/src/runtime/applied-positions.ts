/**
 * The skip rule for repartition topics (docs/streams.md §3). A task reading a repartition
 * partition keeps, per upstream source partition, the highest stamp position (input offset,
 * index; repartition-stamp.ts) it has applied, and skips a stamped record at or below it.
 *
 * Why that is exact: an upstream task's writes to one repartition partition are in input order
 * (one idempotent producer, records queued in order), so within that partition the stamps of
 * one upstream source partition only grow, until the upstream instance dies. Its successor
 * starts from the upstream's last commit, at or before everything the dead one wrote, and
 * appends after all of it (it gets the partition only after the dead one left the group): its
 * re-run first writes again what the dead one wrote, at the same positions, then new records.
 * So every record at or below the highest position seen is one already applied.
 *
 * The positions are part of the task's committed state: each committed offset of a repartition
 * partition carries that partition's positions in its commit metadata (changelog-bounds.ts), and
 * a task created from the group's commits starts from them (resume), so the downstream's own
 * crash and re-run of that partition stays exact too.
 */
import type { CommitOffset } from '@sluice/client'
import type { StreamHeader } from '../api/record.js'
import { decodeCommitVouch } from './changelog-bounds.js'
import { type PartitionPositions, type RepartitionStamp, stampOf } from './repartition-stamp.js'

function sourceKey(s: RepartitionStamp): string {
  return `${s.topic}\u0000${s.partition}`
}

/** The positions of one repartition partition a task reads. */
export class RepartitionPartitionPositions {
  constructor(readonly positions: PartitionPositions = new Map()) {}

  /**
   * The record's stamp, and whether it was applied already (then it is to be skipped).
   * Unstamped records (or stamps this version cannot read) are never duplicates.
   */
  check(headers: readonly StreamHeader[]): { stamp: RepartitionStamp; duplicate: boolean } | undefined {
    const stamp = stampOf(headers)
    if (stamp === undefined) return undefined
    const seen = this.positions.get(sourceKey(stamp))
    const duplicate =
      seen !== undefined && (stamp.offset < seen.offset || (stamp.offset === seen.offset && stamp.index <= seen.index))
    return { stamp, duplicate }
  }

  /** After the record was applied: its position is the highest (check() said it was new). */
  advance(stamp: RepartitionStamp): void {
    this.positions.set(sourceKey(stamp), { offset: stamp.offset, index: stamp.index })
  }
}

/** A task's positions, for the repartition partitions among its inputs. */
export class AppliedPositions {
  private readonly byPartition = new Map<string, RepartitionPartitionPositions>()

  constructor(private readonly repartitionTopics: ReadonlySet<string> = new Set()) {}

  /** The positions of input partition topic/partition; undefined when it is not a repartition topic. */
  forPartition(topic: string, partition: number): RepartitionPartitionPositions | undefined {
    if (!this.repartitionTopics.has(topic)) return undefined
    const k = `${topic}\u0000${partition}`
    let p = this.byPartition.get(k)
    if (p === undefined) {
      p = new RepartitionPartitionPositions()
      this.byPartition.set(k, p)
    }
    return p
  }

  /** What a commit of topic/partition carries (empty for other topics). */
  snapshot(topic: string, partition: number): PartitionPositions {
    return new Map(this.byPartition.get(`${topic}\u0000${partition}`)?.positions ?? [])
  }

  /** Starts from what the group's commits of the task's partitions carry (before the first record). */
  resume(committed: readonly CommitOffset[]): void {
    for (const c of committed) {
      if (c.offset < 0n) continue
      const applied = decodeCommitVouch(c.metadata)?.applied
      const p = this.forPartition(c.topic, c.partition)
      if (p === undefined || applied === undefined) continue
      for (const [k, v] of applied) p.positions.set(k, v)
    }
  }
}
