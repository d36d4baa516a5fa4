/**
 * The per-batch index rule shared by appends and recovery (Kafka `LogSegment.append`/`recover`),
 * so both produce the same entries for the same bytes:
 *   - before a batch, if more than `indexIntervalBytes` were appended since the last offset-index
 *     entry, add (batch lastOffset, batch position) to the offset index and, if the segment's max
 *     timestamp grew since the last time-index entry, (maxTimestampSoFar, its offset) to the time
 *     index;
 *   - the max timestamp so far includes the batch itself.
 * Entries collect in PendingIndexEntries and reach the segment only once the write succeeded.
 */

export interface IndexCursor {
  bytesSinceLastIndexEntry: number
  /** -1 (Kafka's NO_TIMESTAMP) until a batch carries a timestamp. */
  maxTimestampSoFar: bigint
  /** lastOffset of the batch that set maxTimestampSoFar. */
  offsetOfMaxTimestampSoFar: bigint
  /** Timestamp of the last time-index entry (-1 if none); entries must strictly increase. */
  lastTimeEntryTimestamp: bigint
}

export function freshIndexCursor(baseOffset: bigint): IndexCursor {
  return {
    bytesSinceLastIndexEntry: 0,
    maxTimestampSoFar: -1n,
    offsetOfMaxTimestampSoFar: baseOffset,
    lastTimeEntryTimestamp: -1n,
  }
}

export class PendingIndexEntries {
  readonly offsetRel: number[] = []
  readonly offsetPos: number[] = []
  readonly timeTs: bigint[] = []
  readonly timeRel: number[] = []

  get offsetCount(): number {
    return this.offsetRel.length
  }
  get timeCount(): number {
    return this.timeTs.length
  }
}

/** Applies the index rule for one batch at `position`; mutates `cursor`, may add to `pending`. */
export function indexBatch(
  cursor: IndexCursor,
  pending: PendingIndexEntries,
  baseOffset: bigint,
  position: number,
  sizeBytes: number,
  lastOffset: bigint,
  maxTimestamp: bigint,
  indexIntervalBytes: number,
): void {
  if (maxTimestamp > cursor.maxTimestampSoFar) {
    cursor.maxTimestampSoFar = maxTimestamp
    cursor.offsetOfMaxTimestampSoFar = lastOffset
  }
  if (cursor.bytesSinceLastIndexEntry > indexIntervalBytes) {
    pending.offsetRel.push(Number(lastOffset - baseOffset))
    pending.offsetPos.push(position)
    maybeTimeEntry(cursor, pending, baseOffset)
    cursor.bytesSinceLastIndexEntry = 0
  }
  cursor.bytesSinceLastIndexEntry += sizeBytes
}

/** Adds (maxTimestampSoFar, its offset) to the time index if the max grew (also used on close). */
export function maybeTimeEntry(cursor: IndexCursor, pending: PendingIndexEntries, baseOffset: bigint): void {
  if (cursor.maxTimestampSoFar > cursor.lastTimeEntryTimestamp) {
    pending.timeTs.push(cursor.maxTimestampSoFar)
    pending.timeRel.push(Number(cursor.offsetOfMaxTimestampSoFar - baseOffset))
    cursor.lastTimeEntryTimestamp = cursor.maxTimestampSoFar
  }
}
