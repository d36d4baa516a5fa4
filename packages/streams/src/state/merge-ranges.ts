/**
 * Merges two key-ordered ranges where the upper one shadows the lower: the write cache over the
 * store below it, and the persistent engine's unflushed writes over what is on disk. The upper
 * range holds `null` for a key deleted there but maybe still present below.
 */
import type { BytesEntry } from './sorted-bytes-map.js'

/** Both iterators must already be positioned (taken when the caller's range() was called). */
export function* mergeShadowed(
  upper: Iterator<BytesEntry<Buffer | null>>,
  lower: Iterator<BytesEntry<Buffer>>,
): IterableIterator<BytesEntry<Buffer>> {
  let u = upper.next()
  let l = lower.next()
  while (!u.done || !l.done) {
    if (l.done || (!u.done && Buffer.compare(u.value[0], l.value[0]) <= 0)) {
      const [key, value] = u.value as BytesEntry<Buffer | null>
      // The same key below is shadowed by the upper entry, so it is skipped too.
      if (!l.done && Buffer.compare(key, l.value[0]) === 0) l = lower.next()
      u = upper.next()
      if (value !== null) yield [key, value]
    } else {
      yield l.value
      l = lower.next()
    }
  }
}
