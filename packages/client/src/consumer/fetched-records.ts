/**
 * Fetched records waiting for the application, kept as the raw record batches of each fetch
 * response and decoded only when delivered (a partition's buffer is `buffered`, already decoded
 * messages put back by a paused delivery, followed by `fetched` chunks in offset order).
 *
 * Why lazy: the fetcher prefetches (fetcher.ts), so a partition may hold several responses the
 * application has not reached yet. Keeping them as bytes makes the memory bound exact (bytes, not
 * an estimate of objects), costs nothing for data a seek or revocation drops, and spreads the
 * decoding cost over delivery instead of bunching it at the response.
 *
 * At response time only batch headers are read (scanFetched: where the last complete batch ends,
 * which is the next fetch offset). The CRC and the records are checked at decode time; a corrupt
 * batch then stops the partition with CORRUPT_MESSAGE like any other non-retriable fetch error.
 */
import {
  BATCH_HEADER_BYTES, CONTROL_MASK, CURRENT_MAGIC, LOG_OVERHEAD_BYTES, OFF_BASE_OFFSET, OFF_BATCH_LENGTH,
  OFF_LAST_OFFSET_DELTA, OFF_MAGIC, SluiceError, walkRecordBatches,
} from '@sluice/protocol'
import type { BatchHeader, RecordHeader, RecordSink } from '@sluice/protocol'
import type { ConsumerBatch, ConsumerMessage } from './consumer-types.js'
import type { PartitionState } from './subscription.js'

/** One fetch response's complete batches for one partition, not decoded yet. */
export interface FetchedRecords {
  /** Whole batches only (a trailing partial batch is cut off). */
  records: Buffer
  /** The fetch offset: records below it are dropped (a response starts at a batch boundary). */
  fromOffset: bigint
  highWatermark: bigint
}

export interface ScanResult {
  /** Bytes of complete batches from the start. */
  completeBytes: number
  /** Offset after the last complete batch; undefined when there is none. */
  nextOffset: bigint | undefined
}

/**
 * Walks the batch headers of a fetch response (no CRC, no records). Throws INVALID_BATCH or
 * CORRUPT_MESSAGE for a header that cannot be a batch, as decoding would.
 */
export function scanFetched (records: Buffer): ScanResult {
  let pos = 0
  let nextOffset: bigint | undefined
  while (records.length - pos >= BATCH_HEADER_BYTES) {
    const batchLength = records.readInt32BE(pos + OFF_BATCH_LENGTH)
    if (batchLength < BATCH_HEADER_BYTES - LOG_OVERHEAD_BYTES) {
      throw new SluiceError('INVALID_BATCH', `batchLength ${batchLength} is smaller than a header`)
    }
    const magic = records.readInt8(pos + OFF_MAGIC)
    if (magic !== CURRENT_MAGIC) throw new SluiceError('CORRUPT_MESSAGE', `magic ${magic}, expected ${CURRENT_MAGIC}`)
    const size = LOG_OVERHEAD_BYTES + batchLength
    if (records.length - pos < size) break // cut short by the response's size limit
    nextOffset = records.readBigInt64BE(pos + OFF_BASE_OFFSET) + BigInt(records.readInt32BE(pos + OFF_LAST_OFFSET_DELTA)) + 1n
    pos += size
  }
  return { completeBytes: pos, nextOffset }
}

/** Bytes of fetched, undelivered records the partition holds (decoded put-backs not counted). */
export function fetchedBytes (s: PartitionState): number {
  let n = 0
  for (const f of s.fetched) n += f.records.length
  return n
}

/**
 * Takes the partition's next deliverable messages: the put-back ones, else the next fetched
 * chunk that has any (decoding it). Undefined when nothing is left, or when decoding failed:
 * then `s.error` is set and the partition stopped.
 */
export function takeBuffered (s: PartitionState): { messages: ConsumerMessage[], highWatermark: bigint } | undefined {
  if (s.buffered.length > 0) {
    const messages = s.buffered
    s.buffered = []
    return { messages, highWatermark: s.highWatermark }
  }
  while (s.fetched.length > 0) {
    const chunk = s.fetched.shift()!
    let messages: ConsumerMessage[]
    try {
      messages = decodeFetched(s, chunk)
    } catch (err) {
      s.fetched = []
      s.error = err instanceof SluiceError
        ? err
        : new SluiceError('CORRUPT_MESSAGE', String(err), { topic: s.topic, partition: s.partition }, { cause: err })
      s.stopped = true
      return undefined
    }
    if (messages.length > 0) return { messages, highWatermark: chunk.highWatermark }
  }
  return undefined
}

/**
 * The next deliverable batch of some partition, visiting them round-robin from `rotation` so no
 * partition starves: skips paused and empty ones, and throws a partition's error once (the
 * partition stays stopped until a seek). Returns the rotation to start from next time.
 */
export function takeNextBatch (partitions: readonly PartitionState[], rotation: number):
{ s: PartitionState, batch: ConsumerBatch, rotation: number } | undefined {
  const reportOnce = (s: PartitionState): void => {
    if (s.error !== undefined && !s.errorReported) {
      s.errorReported = true
      throw s.error
    }
  }
  for (let i = 0; i < partitions.length; i++) {
    const s = partitions[(rotation + i) % partitions.length]!
    reportOnce(s)
    if (s.paused) continue
    const taken = takeBuffered(s)
    if (taken === undefined) { reportOnce(s); continue } // decoding may have failed just now
    return {
      s,
      batch: { topic: s.topic, partition: s.partition, messages: taken.messages, highWatermark: taken.highWatermark },
      rotation: (rotation + i + 1) % Math.max(1, partitions.length),
    }
  }
  return undefined
}

/**
 * Builds a chunk's ConsumerMessages straight from the record walker, so the message is the only
 * object made per record: records below the fetch offset never get one, control batches are
 * skipped, and after a timestamp seek leading records older than the target are skipped.
 */
class MessageSink implements RecordSink {
  readonly out: ConsumerMessage[] = []

  constructor (private readonly s: PartitionState) {}

  batch (header: BatchHeader): boolean {
    return (header.attributes & CONTROL_MASK) === 0
  }

  record (offset: bigint, timestamp: bigint, key: Buffer | null, value: Buffer | null, headers: RecordHeader[]): void {
    const s = this.s
    if (s.skipBeforeTimestamp !== undefined) {
      if (timestamp < s.skipBeforeTimestamp) {
        s.position = offset + 1n // skipped records count as consumed
        return
      }
      s.skipBeforeTimestamp = undefined
    }
    this.out.push({ topic: s.topic, partition: s.partition, offset, timestamp, key, value, headers })
  }
}

function decodeFetched (s: PartitionState, chunk: FetchedRecords): ConsumerMessage[] {
  const sink = new MessageSink(s)
  walkRecordBatches(chunk.records, sink, { minOffset: chunk.fromOffset })
  return sink.out
}
