/**
 * A group's lag, computed on the server: for every partition the group has a committed offset
 * for or a member owns, lag = log end - committed (0 when the committed offset is past the end,
 * null when either is unknown), as `sluice groups describe` and kafka-consumer-groups show it.
 */
import type { GroupDescription, GroupOffset } from '@sluice/client'
import { tpKey } from './log-offsets.js'

export interface PartitionLag {
  readonly topic: string
  readonly partition: number
  readonly committed: bigint | null
  readonly logEnd: bigint | null
  readonly lag: bigint | null
  readonly memberId: string | null
}

export function partitionLags(
  d: GroupDescription,
  committed: readonly GroupOffset[],
  ends: ReadonlyMap<string, bigint>,
): PartitionLag[] {
  const owner = new Map<string, string>()
  const rows = new Map<string, { topic: string; partition: number }>()
  for (const c of committed) rows.set(tpKey(c.topic, c.partition), c)
  for (const m of d.members)
    for (const tp of m.assignment) {
      owner.set(tpKey(tp.topic, tp.partition), m.memberId)
      rows.set(tpKey(tp.topic, tp.partition), tp)
    }
  const committedAt = new Map(committed.map((c) => [tpKey(c.topic, c.partition), c.offset]))
  return [...rows.values()]
    .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
    .map((tp) => {
      const k = tpKey(tp.topic, tp.partition)
      const c = committedAt.get(k) ?? null
      const end = ends.get(k) ?? null
      return {
        topic: tp.topic,
        partition: tp.partition,
        committed: c,
        logEnd: end,
        lag: c !== null && end !== null ? (end > c ? end - c : 0n) : null,
        memberId: owner.get(k) ?? null,
      }
    })
}

export const totalLag = (rows: readonly PartitionLag[]): bigint => rows.reduce((s, r) => s + (r.lag ?? 0n), 0n)

/** The topics whose log ends a group's lag needs. */
export function lagTopics(d: GroupDescription, committed: readonly GroupOffset[]): string[] {
  return [...new Set([...committed.map((c) => c.topic), ...d.members.flatMap((m) => m.assignment.map((a) => a.topic))])]
}
