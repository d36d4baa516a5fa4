/**
 * The changelog offsets a commit vouches for. Every input offset a task commits carries, in the
 * commit's metadata string, the end offset of each of its changelog partitions at that commit
 * (everything before it acknowledged, and produced by records before the committed offsets).
 * After a crash a changelog may hold more: writes of records whose offsets were never
 * committed, which will be processed again. A restore therefore stops at the bound and then
 * overwrites the keys of that uncommitted tail (changelog-restorer.ts), so the store is exactly
 * what the committed input made, and processing the input again does not count it twice.
 *
 * Layout: `sluice.changelog.v1 <json {"<changelog topic>\u0000<partition>": "<offset>"}>`. Any
 * other metadata (an older commit, another tool) carries no bound.
 */
import type { CommitOffset } from '@sluice/client'

const PREFIX = 'sluice.changelog.v1 '

export function encodeChangelogBounds(positions: ReadonlyMap<string, bigint>): string {
  const o: Record<string, string> = {}
  for (const [k, v] of positions) o[k] = String(v)
  return PREFIX + JSON.stringify(o)
}

/** The bounds in one metadata string, or undefined when it carries none (never throws). */
export function decodeChangelogBounds(metadata: string | undefined): Map<string, bigint> | undefined {
  if (metadata === undefined || !metadata.startsWith(PREFIX)) return undefined
  try {
    const o = JSON.parse(metadata.slice(PREFIX.length)) as unknown
    if (typeof o !== 'object' || o === null || Array.isArray(o)) return undefined
    const out = new Map<string, bigint>()
    for (const [k, v] of Object.entries(o)) {
      if (typeof v !== 'string' || !/^\d+$/.test(v)) return undefined
      out.set(k, BigInt(v))
    }
    return out
  } catch {
    return undefined
  }
}

/**
 * What a task's restore may read of each changelog partition, from the group's committed
 * offsets of its input partitions:
 * - nothing committed on any of them: the input is read again from the start, so no changelog
 *   record counts ('none', restore nothing);
 * - bounds in the metadata: per changelog partition the largest (positions only grow, and a
 *   task's partitions are committed together), a partition missing from them restores nothing;
 * - offsets without bounds (committed by an older version): no bound ('unbounded').
 */
export type RestoreBound =
  | { readonly kind: 'none' }
  | { readonly kind: 'unbounded' }
  | {
      readonly kind: 'bounded'
      readonly ends: ReadonlyMap<string, bigint>
    }

export function restoreBoundOf(committed: readonly CommitOffset[]): RestoreBound {
  const live = committed.filter((c) => c.offset >= 0n)
  if (live.length === 0) return { kind: 'none' }
  let ends: Map<string, bigint> | undefined
  for (const c of live) {
    const b = decodeChangelogBounds(c.metadata)
    if (b === undefined) continue
    ends ??= new Map()
    for (const [k, v] of b) if ((ends.get(k) ?? -1n) < v) ends.set(k, v)
  }
  return ends === undefined ? { kind: 'unbounded' } : { kind: 'bounded', ends }
}
