/**
 * The persistent bytes engine: LMDB (the `lmdb` package, whose binary ships inside npm), chosen
 * in docs/decisions.md for its synchronous reads and transactions. Processing is synchronous, so
 * every call here is.
 *
 * Writes go to an in-memory overlay (a SortedBytesMap where `null` is a delete) and reach LMDB in
 * one synchronous transaction on flush(), whose commit is durable (fsync) before flush returns.
 * Reads look in the overlay first; ranges merge the overlay over an LMDB snapshot iterator. So a
 * store that is written a record at a time pays one commit per flush, not one per write, and
 * what a crash loses is exactly what was not flushed yet (the changelog brings it back).
 *
 * Every key is stored behind a 0x00 prefix byte: LMDB refuses empty keys, and a string serde may
 * make one; one common prefix keeps the order of the keys behind it.
 */
import { type RootDatabase, open } from 'lmdb'
import { StreamsError } from '../errors.js'
import type { BytesEngine, BytesEntry } from './bytes-engine.js'
import { mergeShadowed } from './merge-ranges.js'
import { SortedBytesMap } from './sorted-bytes-map.js'

/** LMDB's own limit (lmdb-js's default build) less the prefix byte. */
export const LMDB_MAX_KEY_BYTES = 1978 - 1

const PREFIX = Buffer.from([0])
const AFTER_PREFIX = Buffer.from([1])

export class LmdbBytesEngine implements BytesEngine {
  readonly persistent = true
  private db: RootDatabase<Buffer, Buffer> | undefined
  private overlay = new SortedBytesMap<Buffer | null>()

  open(dir: string): void {
    try {
      this.db = open<Buffer, Buffer>({
        path: dir,
        keyEncoding: 'binary',
        encoding: 'binary',
        // A synchronous commit is durable when it returns (no separate later flush to wait for).
        overlappingSync: false,
      })
    } catch (cause) {
      throw new StreamsError('STORE_IO', `cannot open the LMDB store in ${dir}: ${String(cause)}`, { cause })
    }
  }

  get(key: Buffer): Buffer | undefined {
    const pending = this.overlay.get(key)
    if (pending !== undefined) return pending ?? undefined
    if (this.overlay.has(key)) return undefined
    return this.database().getBinary(prefixed(key))
  }

  put(key: Buffer, value: Buffer | null): void {
    if (key.length > LMDB_MAX_KEY_BYTES) {
      throw new StreamsError(
        'KEY_TOO_LARGE',
        `key of ${key.length} bytes; the persistent store takes at most ${LMDB_MAX_KEY_BYTES}`,
      )
    }
    this.database()
    this.overlay.set(key, value)
  }

  range(from?: Buffer, to?: Buffer): IterableIterator<BytesEntry<Buffer>> {
    const upper = this.overlay.range(from, to)
    const lower = this.database().getRange({
      start: from === undefined ? PREFIX : prefixed(from),
      end: to === undefined ? AFTER_PREFIX : prefixed(to),
      inclusiveEnd: to !== undefined,
      snapshot: true,
    })
    return mergeShadowed(upper, unprefixed(lower[Symbol.iterator]()))
  }

  /** What LMDB holds plus the overlay's writes (a pending overwrite or delete makes it an overestimate). */
  approximateNumEntries(): number {
    return (this.database().getStats() as { entryCount: number }).entryCount + this.overlay.size
  }

  flush(): void {
    const db = this.database()
    if (this.overlay.size === 0) return
    // A new overlay, not a cleared one: an iteration that is walking the old one keeps its values.
    const writes = this.overlay
    this.overlay = new SortedBytesMap()
    try {
      db.transactionSync(() => {
        for (const [key, value] of writes.entries()) {
          if (value === null) db.removeSync(prefixed(key))
          else db.putSync(prefixed(key), value)
        }
      })
    } catch (cause) {
      this.overlay = writes
      throw new StreamsError('STORE_IO', `cannot commit to the LMDB store: ${String(cause)}`, { cause })
    }
  }

  close(): void {
    const db = this.db
    this.db = undefined
    this.overlay = new SortedBytesMap()
    // close() returns a promise for outstanding async writes; this engine makes none.
    void db?.close()
  }

  private database(): RootDatabase<Buffer, Buffer> {
    if (this.db === undefined) throw new StreamsError('STORE_NOT_OPEN', 'the LMDB engine is not open')
    return this.db
  }
}

function prefixed(key: Buffer): Buffer {
  return Buffer.concat([PREFIX, key])
}

function* unprefixed(entries: Iterator<{ key: Buffer; value: Buffer }>): IterableIterator<BytesEntry<Buffer>> {
  for (let next = entries.next(); !next.done; next = entries.next()) {
    yield [next.value.key.subarray(1), next.value.value]
  }
}
