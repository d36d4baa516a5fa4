/**
 * Per-partition idempotent-producer state (docs/kafka-facts.md §4.2, Kafka `ProducerStateManager`):
 * for every producer id seen in this partition's log, its current epoch and the metadata of the
 * last MAX_CACHED_BATCHES batches it appended (first/last sequence, first/last offset, max
 * timestamp). Pure and synchronous: the caller (ProducerStateManager) runs the check and the
 * append inside the partition's serialised append path, so check-then-append is atomic.
 *
 * Leader checks, in Kafka's order, per batch with a producer id (>= 0):
 *   1. epoch < known epoch                          -> INVALID_PRODUCER_EPOCH
 *   2. same epoch and (firstSeq, lastSeq) equal to a cached batch -> duplicate: nothing is
 *      appended, the caller answers with the cached batch's offsets
 *   3. epoch > known epoch                          -> baseSequence must be 0, else OUT_OF_ORDER
 *   4. same epoch                                   -> baseSequence == lastSeq + 1 (wrapping), else OUT_OF_ORDER
 *   5. unknown producer id (never seen or expired)  -> any sequence is accepted (current Kafka)
 * Several batches of one request are checked as a chain (batch i+1 must follow batch i). If any
 * batch of a request is a duplicate the whole request is answered as that duplicate and nothing
 * is appended (Kafka does the same; our client sends one batch per partition per request).
 * Batches without a producer id (-1) skip all of this. Followers and log replays apply batches
 * without checks (`recordBatch`): the leader already decided.
 */
import { SluiceError } from '@sluice/protocol'
import { NO_PRODUCER_EPOCH, incrementSequence, inSequence } from './sequence.js'

/** Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN; also the client's max in-flight bound. */
export const MAX_CACHED_BATCHES = 5

/** The header fields producer state needs; BatchSpan and BatchHeader both have them. */
export interface ProducerBatchInfo {
  readonly producerId: bigint
  readonly producerEpoch: number
  readonly baseSequence: number
  readonly lastOffsetDelta: number
  readonly maxTimestamp: bigint
}

export interface CachedBatch {
  readonly firstSeq: number
  readonly lastSeq: number
  readonly firstOffset: bigint
  readonly lastOffset: bigint
  /** The batch's maxTimestamp as stored (the broker's clock for LogAppendTime topics). */
  readonly timestamp: bigint
}

export interface ProducerEntry {
  readonly producerId: bigint
  epoch: number
  /** Oldest first, at most MAX_CACHED_BATCHES. */
  batches: CachedBatch[]
  /** maxTimestamp of the last batch; expiry is measured from it, as in Kafka. */
  lastTimestamp: bigint
}

export type LeaderCheck = { readonly kind: 'append' } | { readonly kind: 'duplicate'; readonly batch: CachedBatch }

export function isIdempotent(b: ProducerBatchInfo): boolean {
  return b.producerId >= 0n
}

export function lastSequenceOf(b: ProducerBatchInfo): number {
  return incrementSequence(b.baseSequence, b.lastOffsetDelta)
}

export class ProducerStateTable {
  private readonly entries = new Map<bigint, ProducerEntry>()

  get size(): number {
    return this.entries.size
  }
  get(producerId: bigint): ProducerEntry | undefined {
    return this.entries.get(producerId)
  }
  all(): IterableIterator<ProducerEntry> {
    return this.entries.values()
  }

  /**
   * Decides whether `batches` (one partition's part of a produce request, in order) may be
   * appended. Throws a typed SluiceError for a fenced epoch or a sequence gap. Does not change
   * the table: call recordBatch for each batch once the append succeeded.
   */
  checkLeaderAppend(batches: readonly ProducerBatchInfo[]): LeaderCheck {
    // Chain state of producers seen earlier in this same request.
    const scratch = new Map<bigint, { epoch: number; lastSeq: number }>()
    for (const b of batches) {
      if (!isIdempotent(b)) continue
      if (b.producerEpoch < 0 || b.baseSequence < 0) {
        throw new SluiceError(
          'INVALID_RECORD',
          `a batch with producer id ${b.producerId} needs producerEpoch >= 0 and baseSequence >= 0, got ${b.producerEpoch} / ${b.baseSequence}`,
        )
      }
      const entry = this.entries.get(b.producerId)
      const prior = scratch.get(b.producerId)
      const knownEpoch = prior?.epoch ?? entry?.epoch ?? NO_PRODUCER_EPOCH
      if (b.producerEpoch < knownEpoch) {
        throw new SluiceError(
          'INVALID_PRODUCER_EPOCH',
          `producer ${b.producerId} epoch ${b.producerEpoch} is older than the current epoch ${knownEpoch}`,
          { producerId: String(b.producerId), producerEpoch: b.producerEpoch, currentEpoch: knownEpoch },
        )
      }
      const lastSeq = lastSequenceOf(b)
      if (prior === undefined && entry !== undefined && entry.epoch === b.producerEpoch) {
        const dup = entry.batches.find((c) => c.firstSeq === b.baseSequence && c.lastSeq === lastSeq)
        if (dup !== undefined) return { kind: 'duplicate', batch: dup }
      }
      if (b.producerEpoch > knownEpoch) {
        // A bumped epoch restarts the sequence at 0; an unknown producer may start anywhere.
        if (knownEpoch !== NO_PRODUCER_EPOCH && b.baseSequence !== 0) {
          throw outOfOrder(b, `a new epoch ${b.producerEpoch} must start at sequence 0`)
        }
      } else {
        const currentLast = prior?.lastSeq ?? entry?.batches[entry.batches.length - 1]?.lastSeq
        // An entry with an epoch but no batches (all compacted away) accepts any sequence.
        if (currentLast !== undefined && !inSequence(currentLast, b.baseSequence)) {
          throw outOfOrder(b, `expected sequence ${currentLast === 0x7fffffff ? 0 : currentLast + 1}`)
        }
      }
      scratch.set(b.producerId, { epoch: b.producerEpoch, lastSeq })
    }
    return { kind: 'append' }
  }

  /** Applies one appended batch at `baseOffset` (leader after append, follower, or log replay). */
  recordBatch(b: ProducerBatchInfo, baseOffset: bigint): void {
    if (!isIdempotent(b)) return
    let entry = this.entries.get(b.producerId)
    if (entry === undefined) {
      entry = { producerId: b.producerId, epoch: b.producerEpoch, batches: [], lastTimestamp: b.maxTimestamp }
      this.entries.set(b.producerId, entry)
    } else if (entry.epoch !== b.producerEpoch) {
      entry.epoch = b.producerEpoch
      entry.batches = []
    }
    entry.batches.push({
      firstSeq: b.baseSequence,
      lastSeq: lastSequenceOf(b),
      firstOffset: baseOffset,
      lastOffset: baseOffset + BigInt(b.lastOffsetDelta),
      timestamp: b.maxTimestamp,
    })
    if (entry.batches.length > MAX_CACHED_BATCHES) entry.batches.splice(0, entry.batches.length - MAX_CACHED_BATCHES)
    entry.lastTimestamp = b.maxTimestamp
  }

  /** Replaces an entry wholesale (snapshot load). */
  restore(entry: ProducerEntry): void {
    this.entries.set(entry.producerId, { ...entry, batches: entry.batches.slice(-MAX_CACHED_BATCHES) })
  }

  /** Drops producers whose last batch is `expirationMs` or more older than `nowMs`; returns how many. */
  expire(nowMs: bigint, expirationMs: bigint): number {
    let n = 0
    for (const [pid, e] of this.entries) {
      if (nowMs - e.lastTimestamp >= expirationMs) {
        this.entries.delete(pid)
        n++
      }
    }
    return n
  }

  clear(): void {
    this.entries.clear()
  }
}

function outOfOrder(b: ProducerBatchInfo, why: string): SluiceError {
  return new SluiceError(
    'OUT_OF_ORDER_SEQUENCE_NUMBER',
    `producer ${b.producerId} epoch ${b.producerEpoch}: sequence ${b.baseSequence} is out of order (${why})`,
    { producerId: String(b.producerId), producerEpoch: b.producerEpoch, baseSequence: b.baseSequence },
  )
}
