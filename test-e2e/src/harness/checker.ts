/**
 * The checker: what the producer was told, against what the log holds once the faults stop.
 *
 * Every record the load writes has a value `<key>:<seq>`, `seq` counting up per key from 0, so
 * a record is identified by (key, seq) wherever it lands. The recorder keeps each acknowledged
 * record's (partition, offset) and each send that failed. After the cluster healed, every
 * partition is read from its start to its high watermark and `analyze` reports:
 * - acknowledgedMissing: acknowledged, not readable anywhere (must be 0: acked data was lost);
 * - offsetMismatch: acknowledged, readable, but never at the acknowledged offset (must be 0: the
 *   log that answered the producer is not the log that survived);
 * - duplicates: extra copies of one (key, seq) (must be 0 with the idempotent producer);
 * - reordered: a record whose seq is below the highest seq of its key read before it in the
 *   same partition (must be 0: per-partition order is the send order);
 * - unacknowledgedReadable: readable records whose send failed (allowed: the write may have
 *   succeeded after the producer gave up; counted);
 * - phantom: readable (key, seq) that was never sent (must be 0: corruption);
 * - foreign: records not in `<key>:<seq>` form (other writers; ignored, counted).
 */

export interface AckedRecord {
  partition: number
  offset: bigint
  key: string
  seq: number
}

export interface ReadRecord {
  partition: number
  offset: bigint
  key: string | null
  value: string | null
}

/** The producer side of the history: filled from send() outcomes. */
export class LoadRecorder {
  readonly ackedById = new Map<string, AckedRecord>()
  readonly failedIds = new Set<string>()
  readonly failureCodes = new Map<string, number>()

  acked(r: AckedRecord): void {
    this.ackedById.set(recordId(r.key, r.seq), r)
  }

  failed(r: { key: string; seq: number }, code = 'UNKNOWN'): void {
    this.failedIds.add(recordId(r.key, r.seq))
    this.failureCodes.set(code, (this.failureCodes.get(code) ?? 0) + 1)
  }
}

export interface CheckReport {
  acknowledged: number
  failed: number
  read: number
  acknowledgedMissing: number
  offsetMismatch: number
  duplicates: number
  reordered: number
  unacknowledgedReadable: number
  phantom: number
  foreign: number
  /** Whether every must-be-zero count is zero. */
  ok: boolean
  /** The first few problems, described. */
  examples: string[]
}

const MAX_EXAMPLES = 12

export function recordId(key: string, seq: number): string {
  return `${key}:${seq}`
}

export function parseValue(key: string | null, value: string | null): { key: string; seq: number } | undefined {
  if (key === null || value === null) return undefined
  const m = /^(.*):(\d+)$/.exec(value)
  if (m === null || m[1] !== key) return undefined
  return { key, seq: Number(m[2]) }
}

const where = (partition: number, offset: bigint): string => `${partition}@${offset}`

export function analyze(load: LoadRecorder, read: readonly ReadRecord[]): CheckReport {
  const examples: string[] = []
  const note = (s: string): void => {
    if (examples.length < MAX_EXAMPLES) examples.push(s)
  }
  const sorted = [...read].sort(
    (a, b) => a.partition - b.partition || (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0),
  )
  const places = new Map<string, Array<{ partition: number; offset: bigint }>>()
  const highestSeq = new Map<string, number>() // `${partition}/${key}` -> highest seq read so far
  let duplicates = 0
  let reordered = 0
  let foreign = 0
  for (const r of sorted) {
    const parsed = parseValue(r.key, r.value)
    if (parsed === undefined) {
      foreign++
      continue
    }
    const id = recordId(parsed.key, parsed.seq)
    const seen = places.get(id)
    if (seen !== undefined) {
      duplicates++
      note(
        `duplicate ${id} at ${seen.map((p) => where(p.partition, p.offset)).join(', ')} and ${where(r.partition, r.offset)}`,
      )
      seen.push({ partition: r.partition, offset: r.offset })
      continue
    }
    places.set(id, [{ partition: r.partition, offset: r.offset }])
    const orderKey = `${r.partition}/${parsed.key}`
    const highest = highestSeq.get(orderKey)
    if (highest !== undefined && parsed.seq < highest) {
      reordered++
      note(`reordered ${id} at ${where(r.partition, r.offset)} after seq ${highest}`)
    } else {
      highestSeq.set(orderKey, parsed.seq)
    }
  }
  let acknowledgedMissing = 0
  let offsetMismatch = 0
  for (const [id, a] of load.ackedById) {
    const found = places.get(id)
    if (found === undefined) {
      acknowledgedMissing++
      note(`missing ${id} acked at ${where(a.partition, a.offset)}`)
    } else if (!found.some((p) => p.partition === a.partition && p.offset === a.offset)) {
      offsetMismatch++
      note(
        `offset mismatch ${id} acked at ${where(a.partition, a.offset)}, read at ${found.map((p) => where(p.partition, p.offset)).join(', ')}`,
      )
    }
  }
  let unacknowledgedReadable = 0
  let phantom = 0
  for (const [id, found] of places) {
    if (load.ackedById.has(id)) continue
    if (load.failedIds.has(id)) {
      unacknowledgedReadable++
    } else {
      phantom++
      note(`phantom ${id} at ${where(found[0]!.partition, found[0]!.offset)} was never sent`)
    }
  }
  const ok = acknowledgedMissing === 0 && offsetMismatch === 0 && duplicates === 0 && reordered === 0 && phantom === 0
  return {
    acknowledged: load.ackedById.size,
    failed: load.failedIds.size,
    read: read.length,
    acknowledgedMissing,
    offsetMismatch,
    duplicates,
    reordered,
    unacknowledgedReadable,
    phantom,
    foreign,
    ok,
    examples,
  }
}

/** One line to grep for in CI logs, then the first problems. */
export function formatReport(label: string, r: CheckReport): string {
  const head =
    `CHECK ${label}: ${r.ok ? 'OK' : 'FAILED'} acked=${r.acknowledged} failed=${r.failed} read=${r.read} ` +
    `missing=${r.acknowledgedMissing} offsetMismatch=${r.offsetMismatch} duplicates=${r.duplicates} ` +
    `reordered=${r.reordered} unackedReadable=${r.unacknowledgedReadable} phantom=${r.phantom} foreign=${r.foreign}`
  return [head, ...r.examples.map((e) => `  ${e}`)].join('\n')
}
