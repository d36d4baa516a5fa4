/**
 * Time index (`.timeindex`, docs/kafka-facts.md §2.3): 12-byte big-endian entries (timestamp int64,
 * relativeOffset int32). Timestamps strictly increase: an entry is written only when the
 * segment's max timestamp so far grew, at the same points as offset-index entries and once more
 * when the segment is closed, so the last entry of a closed segment holds its max timestamp. An
 * entry (T, o) means every batch up to offset base+o has maxTimestamp <= T.
 */
import type { FileHandleCache } from '../io/file-handle-cache.js'
import { readExactly } from '../io/file-io.js'

export const TIME_INDEX_ENTRY_BYTES = 12

export class TimeIndexEntries {
  private timestamps: BigInt64Array
  private offsets: Int32Array
  private count = 0

  constructor(capacityEntries = 16) {
    const cap = Math.max(1, capacityEntries)
    this.timestamps = new BigInt64Array(cap)
    this.offsets = new Int32Array(cap)
  }

  static parse(buf: Buffer): TimeIndexEntries | undefined {
    if (buf.length % TIME_INDEX_ENTRY_BYTES !== 0) return undefined
    const n = buf.length / TIME_INDEX_ENTRY_BYTES
    const idx = new TimeIndexEntries(n)
    for (let i = 0; i < n; i++) {
      const ts = buf.readBigInt64BE(i * 12)
      const rel = buf.readInt32BE(i * 12 + 8)
      if (rel < 0) return undefined
      if (i > 0 && (ts <= idx.timestampAt(i - 1) || rel < idx.relOffsetAt(i - 1))) return undefined
      idx.append(ts, rel)
    }
    return idx
  }

  get length(): number {
    return this.count
  }
  timestampAt(i: number): bigint {
    return this.timestamps[i]!
  }
  relOffsetAt(i: number): number {
    return this.offsets[i]!
  }
  get lastTimestamp(): bigint | undefined {
    return this.count === 0 ? undefined : this.timestamps[this.count - 1]
  }

  append(timestamp: bigint, relOffset: number): void {
    if (this.count === this.offsets.length) {
      const ts = new BigInt64Array(this.count * 2)
      ts.set(this.timestamps)
      const os = new Int32Array(this.count * 2)
      os.set(this.offsets)
      this.timestamps = ts
      this.offsets = os
    }
    this.timestamps[this.count] = timestamp
    this.offsets[this.count] = relOffset
    this.count++
  }

  /** relOffset of the greatest entry with timestamp < ts (all batches up to it are older), or undefined. */
  lookupBefore(ts: bigint): number | undefined {
    let lo = 0
    let hi = this.count - 1
    let found = -1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      if (this.timestamps[mid]! < ts) {
        found = mid
        lo = mid + 1
      } else {
        hi = mid - 1
      }
    }
    return found < 0 ? undefined : this.offsets[found]
  }

  /** Drops entries for offsets at or after relOffset (the log was truncated there). */
  truncateToRelOffset(relOffset: number): void {
    while (this.count > 0 && this.offsets[this.count - 1]! >= relOffset) this.count--
  }

  /** Entries [from, length) in file format. */
  toBuffer(from = 0): Buffer {
    const buf = Buffer.allocUnsafe((this.count - from) * TIME_INDEX_ENTRY_BYTES)
    for (let i = from; i < this.count; i++) encodeTimeEntry(buf, (i - from) * 12, this.timestamps[i]!, this.offsets[i]!)
    return buf
  }
}

export function encodeTimeEntry(buf: Buffer, at: number, timestamp: bigint, relOffset: number): void {
  buf.writeBigInt64BE(timestamp, at)
  buf.writeInt32BE(relOffset, at + 8)
}

/** Binary search of a closed segment's .timeindex file; see TimeIndexEntries.lookupBefore. */
export async function lookupTimeIndexFile(
  cache: FileHandleCache,
  file: string,
  entries: number,
  ts: bigint,
): Promise<number | undefined> {
  if (entries === 0) return undefined
  return await cache.use(file, async (fh) => {
    const entry = Buffer.allocUnsafe(TIME_INDEX_ENTRY_BYTES)
    let lo = 0
    let hi = entries - 1
    let best: number | undefined
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      if (!(await readExactly(fh, entry, mid * TIME_INDEX_ENTRY_BYTES))) break
      if (entry.readBigInt64BE(0) < ts) {
        best = entry.readInt32BE(8)
        lo = mid + 1
      } else {
        hi = mid - 1
      }
    }
    return best
  })
}

/** The last entry of a .timeindex file with `entries` entries (a closed segment's max timestamp). */
export async function readLastTimeEntry(
  cache: FileHandleCache,
  file: string,
  entries: number,
): Promise<{ timestamp: bigint; relOffset: number } | undefined> {
  if (entries === 0) return undefined
  return await cache.use(file, async (fh) => {
    const entry = Buffer.allocUnsafe(TIME_INDEX_ENTRY_BYTES)
    if (!(await readExactly(fh, entry, (entries - 1) * TIME_INDEX_ENTRY_BYTES))) return undefined
    return { timestamp: entry.readBigInt64BE(0), relOffset: entry.readInt32BE(8) }
  })
}
