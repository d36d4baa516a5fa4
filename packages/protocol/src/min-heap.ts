/**
 * A binary min-heap ordered by `before(a, b)` (a comes out first). Shared by the broker's
 * delayed-fetch purgatory (parked fetches by deadline) and Streams' suppress buffer (keys by due
 * time): both only ever add, look at the first and take the first.
 */
export class MinHeap<T> {
  private items: T[] = []

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length
  }

  /** The first item, left in place. */
  peek(): T | undefined {
    return this.items[0]
  }

  push(item: T): void {
    const items = this.items
    let i = items.length
    items.push(item)
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.before(item, items[parent]!)) break
      items[i] = items[parent]!
      i = parent
    }
    items[i] = item
  }

  /** Removes and returns the first item. */
  pop(): T | undefined {
    const items = this.items
    const first = items[0]
    const last = items.pop()
    if (items.length > 0 && last !== undefined) this.siftDown(last)
    return first
  }

  /** Keeps only the items `keep` accepts (rebuilds the heap). */
  retain(keep: (item: T) => boolean): void {
    const kept = this.items.filter(keep)
    this.items = []
    for (const item of kept) this.push(item)
  }

  clear(): void {
    this.items = []
  }

  /** Places `item` from the root down to where it belongs. */
  private siftDown(item: T): void {
    const items = this.items
    const n = items.length
    let i = 0
    for (;;) {
      let child = 2 * i + 1
      if (child >= n) break
      if (child + 1 < n && this.before(items[child + 1]!, items[child]!)) child += 1
      if (!this.before(items[child]!, item)) break
      items[i] = items[child]!
      i = child
    }
    items[i] = item
  }
}
