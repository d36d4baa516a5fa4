/**
 * Sparse offset index (`.index`, docs/kafka-facts.md §2.2): 8-byte big-endian entries
 * (relativeOffset int32 = batch lastOffset − segment baseOffset, position int32 = byte position of
 * that batch in the .log). Both fields strictly increase. An entry says "the batch at `position`
 * ends at offset base+relativeOffset", so the batch holding any offset > that one starts at or
 * after `position`. Files are plain and append-only (never preallocated or mapped). The active
 * segment keeps its entries in a growable typed array; closed segments are binary-searched in
 * the file on demand.
 */
import type { FileHandleCache } from '../io/file-handle-cache.js'
import { readExactly } from '../io/file-io.js'

export const OFFSET_INDEX_ENTRY_BYTES = 8

export class OffsetIndexEntries {
  private data: Int32Array
  private count = 0

  constructor(capacityEntries = 16) {
    this.data = new Int32Array(Math.max(2, capacityEntries * 2))
  }

  /** Parses a whole .index file; undefined if it is not a valid index for a log of `logSizeBytes`. */
  static parse(buf: Buffer, logSizeBytes: number): OffsetIndexEntries | undefined {
    if (buf.length % OFFSET_INDEX_ENTRY_BYTES !== 0) return undefined
    const n = buf.length / OFFSET_INDEX_ENTRY_BYTES
    const idx = new OffsetIndexEntries(n)
    for (let i = 0; i < n; i++) {
      const rel = buf.readInt32BE(i * 8)
      const pos = buf.readInt32BE(i * 8 + 4)
      if (rel < 0 || pos < 0 || pos >= logSizeBytes) return undefined
      if (i > 0 && (rel <= idx.relOffsetAt(i - 1) || pos <= idx.positionAt(i - 1))) return undefined
      idx.append(rel, pos)
    }
    return idx
  }

  get length(): number {
    return this.count
  }
  relOffsetAt(i: number): number {
    return this.data[i * 2]!
  }
  positionAt(i: number): number {
    return this.data[i * 2 + 1]!
  }

  append(relOffset: number, position: number): void {
    if (this.count * 2 + 2 > this.data.length) {
      const bigger = new Int32Array(this.data.length * 2)
      bigger.set(this.data)
      this.data = bigger
    }
    this.data[this.count * 2] = relOffset
    this.data[this.count * 2 + 1] = position
    this.count++
  }

  /** Position of the greatest entry with relOffset <= target, or 0 when there is none. */
  lookup(relTarget: number): number {
    let lo = 0
    let hi = this.count - 1
    let found = -1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      if (this.relOffsetAt(mid) <= relTarget) {
        found = mid
        lo = mid + 1
      } else {
        hi = mid - 1
      }
    }
    return found < 0 ? 0 : this.positionAt(found)
  }

  /** Drops entries whose batch starts at or after `position` (the log was truncated there). */
  truncateToPosition(position: number): void {
    while (this.count > 0 && this.positionAt(this.count - 1) >= position) this.count--
  }

  /** Entries [from, length) in file format. */
  toBuffer(from = 0): Buffer {
    const buf = Buffer.allocUnsafe((this.count - from) * OFFSET_INDEX_ENTRY_BYTES)
    for (let i = from; i < this.count; i++)
      encodeOffsetEntry(buf, (i - from) * 8, this.relOffsetAt(i), this.positionAt(i))
    return buf
  }
}

export function encodeOffsetEntry(buf: Buffer, at: number, relOffset: number, position: number): void {
  buf.writeInt32BE(relOffset, at)
  buf.writeInt32BE(position, at + 4)
}

/**
 * Binary search of a closed segment's .index file (`entries` entries) for the greatest entry with
 * relOffset <= relTarget; its position, or 0. Entries pointing past `logSizeBytes` are ignored.
 */
export async function lookupOffsetIndexFile(
  cache: FileHandleCache,
  file: string,
  entries: number,
  relTarget: number,
  logSizeBytes: number,
): Promise<number> {
  if (entries === 0) return 0
  return await cache.use(file, async (fh) => {
    const entry = Buffer.allocUnsafe(OFFSET_INDEX_ENTRY_BYTES)
    let lo = 0
    let hi = entries - 1
    let best = 0
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      if (!(await readExactly(fh, entry, mid * OFFSET_INDEX_ENTRY_BYTES))) break
      const rel = entry.readInt32BE(0)
      if (rel <= relTarget) {
        const pos = entry.readInt32BE(4)
        if (pos >= 0 && pos < logSizeBytes) best = pos
        lo = mid + 1
      } else {
        hi = mid - 1
      }
    }
    return best
  })
}
