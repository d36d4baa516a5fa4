/**
 * A map from byte-string keys to values, iterable in key-bytes order (Buffer.compare order).
 *
 * Keys are held as latin1 strings: latin1 maps each byte to one UTF-16 code unit of the same
 * value, so JavaScript's string order (`<`, and `Array.prototype.sort` without a comparator) is
 * exactly unsigned-byte order, and a Map gives O(1) get and put. The sorted index is brought up
 * to date lazily: a new key is appended to `pending`, and the next range sorts the pending keys
 * and merges them in (O(n + p log p)), so a restore or a burst of puts never pays for ordering
 * key by key.
 *
 * Iteration is over a snapshot: range() copies the keys in its bounds when it is called. Values
 * are read as the iteration reaches each key, so a key put or overwritten during the iteration
 * gives its newest value, a key deleted during it is skipped, and a key that was new after the
 * call is not seen. Putting while iterating is therefore safe (a processor may update the store
 * it is ranging over).
 */

export type BytesEntry<V> = readonly [key: Buffer, value: V]

interface Slot<V> {
  readonly key: Buffer
  value: V
}

export class SortedBytesMap<V> {
  private readonly slots = new Map<string, Slot<V>>()
  /** Sorted, unique; may still hold keys deleted since (skipped on read, dropped on the next merge). */
  private sorted: string[] = []
  /** Keys put since the last merge, in no order. */
  private pending: string[] = []
  private deletedSinceMerge = 0

  get size(): number {
    return this.slots.size
  }

  get(key: Buffer): V | undefined {
    return this.slots.get(key.toString('latin1'))?.value
  }

  has(key: Buffer): boolean {
    return this.slots.has(key.toString('latin1'))
  }

  set(key: Buffer, value: V): void {
    const id = key.toString('latin1')
    const slot = this.slots.get(id)
    if (slot !== undefined) {
      slot.value = value
      return
    }
    this.slots.set(id, { key, value })
    this.pending.push(id)
  }

  delete(key: Buffer): boolean {
    const removed = this.slots.delete(key.toString('latin1'))
    if (removed) this.deletedSinceMerge++
    return removed
  }

  clear(): void {
    this.slots.clear()
    this.sorted = []
    this.pending = []
    this.deletedSinceMerge = 0
  }

  /** Every entry in the order its key was first set (no sorting; for writing the map out). */
  *entries(): IterableIterator<BytesEntry<V>> {
    for (const slot of this.slots.values()) yield [slot.key, slot.value]
  }

  /** Entries with keys in [from, to] (both inclusive, either may be omitted), in key order. */
  range(from?: Buffer, to?: Buffer): IterableIterator<BytesEntry<V>> {
    this.index()
    const lo = from === undefined ? 0 : lowerBound(this.sorted, from.toString('latin1'))
    const hi = to === undefined ? this.sorted.length : upperBound(this.sorted, to.toString('latin1'))
    return this.iterate(lo < hi ? this.sorted.slice(lo, hi) : [])
  }

  private *iterate(ids: readonly string[]): IterableIterator<BytesEntry<V>> {
    for (const id of ids) {
      const slot = this.slots.get(id)
      if (slot !== undefined) yield [slot.key, slot.value]
    }
  }

  /** Merges the pending keys into the sorted index and drops deleted ones once they pile up. */
  private index(): void {
    const compact = this.deletedSinceMerge > 0 && this.deletedSinceMerge * 4 >= this.sorted.length
    if (this.pending.length === 0 && !compact) return
    const pending = this.pending.sort()
    const merged: string[] = []
    let i = 0
    let j = 0
    while (i < this.sorted.length || j < pending.length) {
      let next: string
      if (j >= pending.length || (i < this.sorted.length && this.sorted[i]! <= pending[j]!)) next = this.sorted[i++]!
      else next = pending[j++]!
      // A key deleted and put again is in both lists; a deleted one is in neither map nor result.
      if (merged.length > 0 && merged[merged.length - 1] === next) continue
      if (this.slots.has(next)) merged.push(next)
    }
    this.sorted = merged
    this.pending = []
    this.deletedSinceMerge = 0
  }
}

/** First index whose key is >= id. */
function lowerBound(sorted: readonly string[], id: string): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]! < id) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First index whose key is > id. */
function upperBound(sorted: readonly string[], id: string): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]! <= id) lo = mid + 1
    else hi = mid
  }
  return lo
}
