/**
 * What the active (last) segment keeps in memory while it takes appends (segment.ts): its index
 * entries, the index cursor, where its last few batches are, and a copy of the last append's
 * bytes. Made when the segment becomes active (created, loaded, recovered), dropped when it is
 * finalized (roll, close), so an idle partition holds none of it.
 */
import type { IndexCursor } from './index-cursor.js'
import type { OffsetIndexEntries } from './offset-index.js'
import { RecentBatches } from './recent-batches.js'
import type { TimeIndexEntries } from './time-index.js'

/** In-memory indexes of the active segment. */
export interface ActiveIndexes {
  readonly offsetIndex: OffsetIndexEntries
  readonly timeIndex: TimeIndexEntries
  cursor: IndexCursor
  /** Where the last few batches are (tail reads). */
  readonly recent: RecentBatches
  /**
   * A copy of the last append's bytes (up to LAST_WRITE_MAX_BYTES) and where they start: the
   * bytes followers and caught-up consumers fetch next, served without a read of the file. Valid
   * only while they end at sizeBytes (a truncation leaves them stale; the next append replaces
   * them).
   */
  lastWrite: LastWrite | undefined
}

export interface LastWrite {
  readonly position: number
  readonly bytes: Buffer
}

export function activeIndexes(
  offsetIndex: OffsetIndexEntries,
  timeIndex: TimeIndexEntries,
  cursor: IndexCursor,
): ActiveIndexes {
  return { offsetIndex, timeIndex, cursor, recent: new RecentBatches(), lastWrite: undefined }
}

/**
 * Appends up to this size are also kept in memory for the next tail read (one batch at a low
 * rate, a few at 10,000 records/s): at most this much per active segment, 40 MB over 10,000
 * partitions, to save the `pread` every follower and consumer fetch of fresh data made (issue 16).
 */
const LAST_WRITE_MAX_BYTES = 4096

/**
 * The last write to keep for buf[start, end), written at `position`: undefined when it is too
 * large. The bytes are copied into memory of their own: a small Buffer.from would share Node's
 * 8 KiB pool, and a copy kept as long as a quiet partition's last append would pin the whole slab.
 */
export function lastWriteOf(buf: Buffer, start: number, end: number, position: number): LastWrite | undefined {
  if (end - start > LAST_WRITE_MAX_BYTES) return undefined
  const copy = Buffer.allocUnsafeSlow(end - start)
  buf.copy(copy, 0, start, end)
  return { position, bytes: copy }
}
