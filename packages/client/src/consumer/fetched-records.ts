/**
 * Fetched records waiting for the application, kept as the raw record batches of each fetch
 * response and decoded only when delivered (a partition's buffer is `buffered`, already decoded
 * messages put back by a paused delivery, followed by `fetched` chunks in offset order).
 *
 * Why lazy: the fetcher prefetches (fetcher.ts), so a partition may hold several responses the
 * application has not reached yet. Keeping them as bytes makes the memory bound a count of bytes
 * (not an estimate of objects), costs nothing for data a seek or revocation drops, and spreads the
 * decoding cost over delivery instead of bunching it at the response.
 *
 * Each batch's header is read once, at response time (scanFetched, with the walker's
 * frameBatchAt): that walk finds where the last complete batch ends, which is the next fetch
 * offset, and keeps the headers with the chunk, so delivery walks only the records of each
 * batch (walkBatchLazily) instead of finding the batches again. A chunk is delivered in slices of
 * about DELIVERY_SLICE_BYTES; the CRC and the records of a slice are checked when it is taken
 * (each message is then a lazy view of its record: fetched-message.ts), and a corrupt batch stops
 * the partition with CORRUPT_MESSAGE like any other non-retriable fetch error, before any message
 * of its slice is handed out. The kept headers are the one per-batch object the walker made
 * anyway, now made earlier; they are not counted in the buffered bytes (a batch is at least 61
 * bytes and usually kilobytes, its header object a few hundred).
 */
import { CONTROL_MASK, SluiceError, frameBatchAt, traceHop, traceOn, walkBatchLazily } from '@sluice/protocol'
import type { BatchHeader, RecordPositionSink } from '@sluice/protocol'
import type { ConsumerBatch, ConsumerMessage } from './consumer-types.js'
import { FetchedMessage, type MessageSource } from './fetched-message.js'
import type { FetchedRecords, PartitionState } from './subscription.js'

export interface ScanResult {
  /** Bytes of complete batches from the start. */
  completeBytes: number
  /** Offset after the last complete batch; undefined when there is none. */
  nextOffset: bigint | undefined
  /** The complete batches' headers (framing checked, CRC not yet). */
  batches: BatchHeader[]
}

/**
 * Reads the batch headers of a fetch response (no CRC, no records). Throws INVALID_BATCH or
 * CORRUPT_MESSAGE for a header that cannot be a batch, as decoding would.
 */
export function scanFetched(records: Buffer): ScanResult {
  const batches: BatchHeader[] = []
  let pos = 0
  for (let h = frameBatchAt(records, 0); h !== undefined; h = frameBatchAt(records, pos)) {
    batches.push(h)
    pos += h.sizeBytes
  }
  const last = batches[batches.length - 1]
  return {
    completeBytes: pos,
    nextOffset: last === undefined ? undefined : last.baseOffset + BigInt(last.lastOffsetDelta) + 1n,
    batches,
  }
}

/** Bytes of fetched, undelivered records the partition holds (decoded put-backs not counted). */
export function fetchedBytes(s: PartitionState): number {
  let n = 0
  for (const f of s.fetched) n += f.records.length - (f.batches[f.taken]?.position ?? f.records.length)
  return n
}

/**
 * How many bytes of record batches one delivered batch is decoded from (at least one record
 * batch; a fetched chunk holds up to maxPartitionBytes). Small enough that the bytes are still in
 * the CPU's cache when the application reads the messages just made from them, and that the
 * messages die young: decoding a 4 MiB chunk at once made the application's reads a second pass
 * over memory and kept ~37,000 messages alive across young-generation collections.
 */
export const DELIVERY_SLICE_BYTES = 256 * 1024

/**
 * Takes the partition's next deliverable messages: the put-back ones, else the next fetched
 * chunk that has any (decoding it). Undefined when nothing is left, or when decoding failed:
 * then `s.error` is set and the partition stopped.
 */
export function takeBuffered(s: PartitionState): { messages: ConsumerMessage[]; highWatermark: bigint } | undefined {
  if (s.buffered.length > 0) {
    const messages = s.buffered
    s.buffered = []
    return { messages, highWatermark: s.highWatermark }
  }
  while (s.fetched.length > 0) {
    const chunk = s.fetched[0]!
    let messages: ConsumerMessage[]
    try {
      messages = decodeSlice(s, chunk)
      if (chunk.taken === chunk.batches.length) s.fetched.shift()
    } catch (err) {
      s.fetched = []
      s.error =
        err instanceof SluiceError
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
export function takeNextBatch(
  partitions: readonly PartitionState[],
  rotation: number,
): { s: PartitionState; batch: ConsumerBatch; rotation: number } | undefined {
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
    if (taken === undefined) {
      reportOnce(s)
      continue
    } // decoding may have failed just now
    if (traceOn) traceDelivered(s, taken.messages)
    return {
      s,
      batch: { topic: s.topic, partition: s.partition, messages: taken.messages, highWatermark: taken.highWatermark },
      rotation: (rotation + i + 1) % Math.max(1, partitions.length),
    }
  }
  return undefined
}

/** The anatomy's last stamp: these messages are handed to the application now. */
function traceDelivered(s: PartitionState, messages: readonly ConsumerMessage[]): void {
  const first = messages[0]
  const last = messages[messages.length - 1]
  if (first !== undefined && last !== undefined) {
    traceHop('consumer-delivered', -1, s.topic, s.partition, first.offset, last.offset + 1n)
  }
}

/**
 * Builds a chunk's ConsumerMessages from the record walk as lazy views (fetched-message.ts), so
 * the message is the only object made per record and its fields are decoded when read: records
 * below the fetch offset never get one, control batches are skipped, and after a timestamp seek
 * leading records older than the target are skipped.
 */
class MessageSink implements RecordPositionSink {
  readonly out: ConsumerMessage[] = []
  private src: MessageSource | undefined

  constructor(private readonly s: PartitionState) {}

  batch(header: BatchHeader): boolean {
    this.src = undefined // a batch's records share one source, made at its first record
    return (header.attributes & CONTROL_MASK) === 0
  }

  record(data: Buffer, keyPos: number, offset: number | bigint, timestamp: number | bigint): void {
    const s = this.s
    if (s.skipBeforeTimestamp !== undefined) {
      if (timestamp < s.skipBeforeTimestamp) {
        s.position = BigInt(offset) + 1n // skipped records count as consumed
        return
      }
      s.skipBeforeTimestamp = undefined
    }
    let src = this.src
    if (src === undefined) this.src = src = { topic: s.topic, partition: s.partition, data }
    this.out.push(new FetchedMessage(src, keyPos, offset, timestamp))
  }
}

/** Decodes the chunk's next record batches, DELIVERY_SLICE_BYTES of them (at least one). */
function decodeSlice(s: PartitionState, chunk: FetchedRecords): ConsumerMessage[] {
  const sink = new MessageSink(s)
  const options = { minOffset: chunk.fromOffset }
  const { records, batches } = chunk
  const start = batches[chunk.taken]?.position ?? 0
  while (chunk.taken < batches.length) {
    const header = batches[chunk.taken]!
    if (header.position - start >= DELIVERY_SLICE_BYTES) break
    chunk.taken++ // taken even if it throws: the partition stops, and its buffers are dropped
    walkBatchLazily(records, header, sink, options)
  }
  return sink.out
}
