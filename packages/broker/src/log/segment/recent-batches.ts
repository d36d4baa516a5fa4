/**
 * Where the last few batches of the active segment are (file position, size, base and last offset
 * relative to the segment base), so a read at or near the log end (followers, caught-up
 * consumers) starts at the right byte without reading batch headers from the file: one `read`
 * instead of a header scan from the last sparse index entry, plus the read of the data.
 * Invariants:
 *   - entries are consecutive batches of the segment in file order (the oldest is overwritten
 *     once CAPACITY are held), and only published ones: added after their write completed;
 *   - so for a target at or after the oldest entry's base offset (or any target, when the oldest
 *     entry is the segment's first batch) the answer is exact; otherwise `find` says it does not
 *     know and the caller falls back to the index and a header scan.
 * One fixed Int32Array (relative offsets fit in int32: append-plan.ts rolls before they would not).
 */

/** Enough for several fetches' worth of appends at a high request rate; 512 bytes per active segment. */
const CAPACITY = 32
const FIELDS = 4 // relBase, relLast, position, sizeBytes

/** A batch located without reading it: where it starts, how long it is, its base offset. */
export interface BatchLocation {
  position: number
  sizeBytes: number
  /** Relative to the segment base. */
  relBase: number
}

/** Whole batches of a tail read: `bytes` from `position` (0 bytes: none fits), the first at relBase. */
export interface TailSpan {
  position: number
  bytes: number
  relBase: number
}

const END = -1
const UNKNOWN = -2

export class RecentBatches {
  private readonly data = new Int32Array(CAPACITY * FIELDS)
  /** Slot of the oldest entry. */
  private head = 0
  private count = 0

  get length(): number {
    return this.count
  }

  /** File position of the oldest batch held (bytes from here on were written moments ago), or undefined. */
  get tailStart(): number | undefined {
    return this.count === 0 ? undefined : this.data[this.head * FIELDS + 2]
  }

  /** Records a published batch that follows the newest entry in the file. */
  push(relBase: number, relLast: number, position: number, sizeBytes: number): void {
    let slot: number
    if (this.count < CAPACITY) {
      slot = (this.head + this.count) % CAPACITY
      this.count++
    } else {
      slot = this.head
      this.head = (this.head + 1) % CAPACITY
    }
    const at = slot * FIELDS
    this.data[at] = relBase
    this.data[at + 1] = relLast
    this.data[at + 2] = position
    this.data[at + 3] = sizeBytes
  }

  /**
   * The first batch whose last offset is >= relTarget, among batches wholly below `limit` (a
   * published size): a location, 'end' when every batch below `limit` ends before the target,
   * or undefined when an older batch not held here could be the answer.
   */
  find(relTarget: number, limit: number): BatchLocation | 'end' | undefined {
    const i = this.indexOf(relTarget, limit)
    if (i < 0) return i === END ? 'end' : undefined
    const at = this.slot(i)
    return { position: this.data[at + 2]!, sizeBytes: this.data[at + 3]!, relBase: this.data[at]! }
  }

  /**
   * The bytes a tail read returns (log-reader.ts's rules) when the batch holding relTarget is
   * held here: from that batch on, whole batches while their total stays within maxBytes (the
   * first one whatever its size with minOneBatch) and each ends below relMax. 'end' when no
   * batch below `limit` reaches the target; undefined when an older batch could hold it.
   */
  span(
    relTarget: number,
    limit: number,
    maxBytes: number,
    relMax: number,
    minOneBatch: boolean,
  ): TailSpan | 'end' | undefined {
    const first = this.indexOf(relTarget, limit)
    if (first < 0) return first === END ? 'end' : undefined
    const start = this.slot(first)
    let bytes = 0
    for (let i = first; i < this.count; i++) {
      const at = this.slot(i)
      const size = this.data[at + 3]!
      if (this.data[at + 1]! >= relMax || this.data[at + 2]! + size > limit) break
      if (bytes + size > maxBytes && !(bytes === 0 && minOneBatch)) break
      bytes += size
    }
    return { position: this.data[start + 2]!, bytes, relBase: this.data[start]! }
  }

  /** Entry index (0 = oldest) of the first batch reaching relTarget below `limit`, or END / UNKNOWN. */
  private indexOf(relTarget: number, limit: number): number {
    if (this.count === 0) return UNKNOWN
    const oldest = this.head * FIELDS
    if (relTarget < this.data[oldest]! && this.data[oldest + 2]! !== 0) return UNKNOWN
    // Newest first: tail reads ask for one of the last few batches.
    let found = -1
    for (let i = this.count - 1; i >= 0; i--) {
      if (this.data[this.slot(i) + 1]! < relTarget) break
      found = i
    }
    if (found < 0) return END
    const at = this.slot(found)
    // Appended after the caller's snapshot of the size: everything below `limit` ends before the target.
    return this.data[at + 2]! + this.data[at + 3]! > limit ? END : found
  }

  private slot(i: number): number {
    return ((this.head + i) % CAPACITY) * FIELDS
  }

  /** Drops entries for batches at or after `position` (the segment was truncated there). */
  truncateToPosition(position: number): void {
    while (this.count > 0 && this.data[((this.head + this.count - 1) % CAPACITY) * FIELDS + 2]! >= position)
      this.count--
  }
}
