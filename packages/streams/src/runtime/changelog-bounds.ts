/**
 * The changelog offsets a commit vouches for. Every input offset a task commits carries, in the
 * commit's metadata string, the end offset of each of its changelog partitions at that commit
 * (everything before it acknowledged, and produced by records before the committed offsets).
 * After a crash a changelog may hold more: writes of records whose offsets were never
 * committed, which will be processed again. A restore therefore stops at the bound and then
 * overwrites the keys of that uncommitted tail (changelog-restorer.ts), so the store is exactly
 * what the committed input made, and processing the input again does not count it twice.
 *
 * The same metadata carries the task's stream time (the largest record timestamp it had
 * processed), so a restarted task closes windows where the killed one did: without it a task
 * would start at stream time -1 and accept records for windows already emitted as final.
 *
 * The offset of a repartition partition also carries the positions the task has applied from it
 * (applied-positions.ts): per upstream source partition, the highest (input offset, index) of
 * the stamped records it processed, so a task created from the commit skips the same duplicates.
 *
 * Layout: `sluice.task.v3 <json {"changelogs": {"<changelog topic>\u0000<partition>": "<offset>"},
 * "streamTimeMs": <integer>, "applied"?: {"<source topic>": {"<partition>": "<offset>.<index>"}}}>`
 * ("applied" only on a repartition partition's offset, and only once it has one). Still read:
 * `sluice.task.v2` (the same without "applied") and `sluice.changelog.v1 <json of the
 * changelogs>` (no stream time). Any other metadata (another tool) carries none of it.
 */
import type { CommitOffset } from '@sluice/client'
import type { PartitionPositions } from './repartition-stamp.js'

const V1 = 'sluice.changelog.v1 '
const V2 = 'sluice.task.v2 '
const V3 = 'sluice.task.v3 '

/** What one commit's metadata vouches for. */
export interface CommitVouch {
  readonly bounds: Map<string, bigint>
  /** -1 when the commit carries none. */
  readonly streamTimeMs: number
  /** The applied positions of a repartition partition (`<topic>\u0000<partition>` of the source); undefined when none. */
  readonly applied?: PartitionPositions
}

export function encodeChangelogBounds(
  positions: ReadonlyMap<string, bigint>,
  streamTimeMs = -1,
  applied?: PartitionPositions,
): string {
  const changelogs: Record<string, string> = {}
  for (const [k, v] of positions) changelogs[k] = String(v)
  if (applied === undefined || applied.size === 0) return V3 + JSON.stringify({ changelogs, streamTimeMs })
  // Prototype-less: a topic may be called `__proto__`.
  const bySource: Record<string, Record<string, string>> = Object.create(null)
  for (const [k, p] of applied) {
    const cut = k.lastIndexOf('\u0000')
    const topic = k.slice(0, cut)
    bySource[topic] ??= Object.create(null) as Record<string, string>
    bySource[topic][k.slice(cut + 1)] = `${p.offset}.${p.index}`
  }
  return V3 + JSON.stringify({ changelogs, streamTimeMs, applied: bySource })
}

/** The bounds in one metadata string, or undefined when it carries none (never throws). */
export function decodeChangelogBounds(metadata: string | undefined): Map<string, bigint> | undefined {
  return decodeCommitVouch(metadata)?.bounds
}

/** Bounds and stream time of one metadata string, undefined when it is not ours (never throws). */
export function decodeCommitVouch(metadata: string | undefined): CommitVouch | undefined {
  if (metadata === undefined) return undefined
  try {
    if (metadata.startsWith(V1)) {
      const bounds = boundsOf(JSON.parse(metadata.slice(V1.length)))
      return bounds === undefined ? undefined : { bounds, streamTimeMs: -1 }
    }
    const v3 = metadata.startsWith(V3)
    if (!v3 && !metadata.startsWith(V2)) return undefined
    const o = JSON.parse(metadata.slice((v3 ? V3 : V2).length)) as {
      changelogs?: unknown
      streamTimeMs?: unknown
      applied?: unknown
    } | null
    if (typeof o !== 'object' || o === null) return undefined
    const bounds = boundsOf(o.changelogs)
    const t = o.streamTimeMs
    if (bounds === undefined || typeof t !== 'number' || !Number.isSafeInteger(t) || t < -1) return undefined
    if (!v3 || o.applied === undefined) return { bounds, streamTimeMs: t }
    const applied = appliedOf(o.applied)
    return applied === undefined ? undefined : { bounds, streamTimeMs: t, applied }
  } catch {
    return undefined
  }
}

function isRecord(o: unknown): o is Record<string, unknown> {
  return typeof o === 'object' && o !== null && !Array.isArray(o)
}

function appliedOf(o: unknown): PartitionPositions | undefined {
  if (!isRecord(o)) return undefined
  const out: PartitionPositions = new Map()
  for (const [topic, partitions] of Object.entries(o)) {
    if (!isRecord(partitions)) return undefined
    for (const [p, v] of Object.entries(partitions)) {
      const m = typeof v === 'string' ? /^(\d{1,19})\.(\d{1,10})$/.exec(v) : null
      if (m === null || !/^\d{1,10}$/.test(p)) return undefined
      out.set(`${topic}\u0000${Number(p)}`, { offset: BigInt(m[1]!), index: Number(m[2]) })
    }
  }
  return out
}

function boundsOf(o: unknown): Map<string, bigint> | undefined {
  if (!isRecord(o)) return undefined
  const out = new Map<string, bigint>()
  for (const [k, v] of Object.entries(o)) {
    if (typeof v !== 'string' || !/^\d+$/.test(v)) return undefined
    out.set(k, BigInt(v))
  }
  return out
}

/** The largest stream time the committed offsets of a task's partitions carry (-1: none). */
export function committedStreamTimeOf(committed: readonly CommitOffset[]): number {
  let t = -1
  for (const c of committed) {
    if (c.offset < 0n) continue
    const v = decodeCommitVouch(c.metadata)
    if (v !== undefined && v.streamTimeMs > t) t = v.streamTimeMs
  }
  return t
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
