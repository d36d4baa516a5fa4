/**
 * The in-memory bytes engine: a SortedBytesMap, nothing on disk. Its state is rebuilt from the
 * changelog on every start. Ranges iterate a sorted copy of the keys in bounds taken when
 * range() is called (sorted-bytes-map.ts), so puts during an iteration are safe.
 */
import type { BytesEngine } from './bytes-engine.js'
import { type BytesEntry, SortedBytesMap } from './sorted-bytes-map.js'

export class InMemoryBytesEngine implements BytesEngine {
  readonly persistent = false
  private readonly map = new SortedBytesMap<Buffer>()

  open(_dir: string): void {}

  get(key: Buffer): Buffer | undefined {
    return this.map.get(key)
  }

  put(key: Buffer, value: Buffer | null): void {
    if (value === null) this.map.delete(key)
    else this.map.set(key, value)
  }

  range(from?: Buffer, to?: Buffer): IterableIterator<BytesEntry<Buffer>> {
    return this.map.range(from, to)
  }

  approximateNumEntries(): number {
    return this.map.size
  }

  flush(): void {}

  close(): void {
    this.map.clear()
  }
}
