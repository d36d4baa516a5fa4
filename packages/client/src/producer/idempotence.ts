/**
 * Client side of the idempotent producer (docs/kafka-facts.md §4.1-4.2): producer identity, and per
 * partition the sequence numbers and the batches whose outcome is not known yet.
 *
 * Invariants:
 * - A batch gets its producer id, epoch and base sequence when it is first drained; they never
 *   change (retries resend the same bytes), and a partition's sequences are consecutive
 *   (wrapping at Int32.MAX) in drain order.
 * - At most `maxInFlight` (<= 5, the broker's dedup window) batches of a partition are in
 *   flight, all to the same broker. A retried batch is only sent when nothing of its partition is
 *   in flight, and retries go back in sequence order ahead of unsequenced batches
 *   (RecordAccumulator.reenqueue), so the broker sees sequences in order and recognises batches
 *   it already has as duplicates (answered with the original offsets).
 * - OUT_OF_ORDER_SEQUENCE_NUMBER for a batch with an earlier unresolved batch in its partition is
 *   the expected echo of that earlier failure: the batch is retried. For the first unresolved
 *   batch it is a real gap, which (like INVALID_PRODUCER_EPOCH, UNKNOWN_PRODUCER_ID, any other
 *   final failure of a sequenced batch, or a delivery timeout, after which the broker may or may
 *   not have the batch) "poisons" the partition: once nothing of it is in flight, every remaining
 *   sequenced batch of it fails with that error (none of them can be appended: their sequences
 *   follow the gap), and the partition continues with a fresh producer id from sequence 0.
 *   This replaces Kafka's KIP-360 epoch bump: broker state is per (partition, producer id), so a
 *   fresh id per partition is as good as a bumped epoch and needs no coordination across partitions.
 * Single-threaded: event loop only.
 */
import { SluiceError, systemClock, type Clock } from '@sluice/protocol'
import type { ProducerBatch } from './producer-batch.js'
import type { ProducerIdentity } from './producer-id.js'

const INT32_MAX = 0x7fffffff
/** The broker keeps the last 5 batches per producer: more in flight could not be deduplicated. */
export const MAX_IDEMPOTENT_IN_FLIGHT = 5

export function nextSequence(seq: number, count: number): number {
  return seq > INT32_MAX - count ? count - (INT32_MAX - seq) - 1 : seq + count
}

export interface IdempotenceOptions {
  maxInFlight: number
  fetchIdentity: () => Promise<ProducerIdentity>
  /** Called when an identity arrived (or failed), so the sender runs a round. */
  wakeup: () => void
  /** Pause after a failed identity request. */
  retryBackoffMs: number
  /** Reads "now" for that pause; the sender's clock (default systemClock). */
  clock?: Clock
}

interface PartitionSequencing {
  /** Set after a reset: this partition's own producer id; otherwise the producer's shared one. */
  own: ProducerIdentity | undefined
  needsOwn: boolean
  fetchingOwn: boolean
  nextSeq: number
  /** Sequenced batches not yet settled, in sequence order. */
  unresolved: ProducerBatch[]
  inFlight: number
  inFlightBroker: number
  poison: SluiceError | undefined
}

export class IdempotenceManager {
  private shared: ProducerIdentity | undefined
  private fetchingShared = false
  private retryAtMs = 0
  private order = 0
  private readonly parts = new Map<string, PartitionSequencing>()
  /** The last InitProducerId failure, reported as the cause of a delivery timeout. */
  lastIdentityError: SluiceError | undefined

  private readonly clock: Clock

  constructor(private readonly o: IdempotenceOptions) {
    this.clock = o.clock ?? systemClock
  }

  /** Starts fetching the producer id early, so the first send does not wait for it. */
  start(): void {
    this.fetchShared()
  }

  /** @internal tests */
  get sharedIdentity(): ProducerIdentity | undefined {
    return this.shared
  }

  mayDrain(head: ProducerBatch, leader: number): boolean {
    const p = this.part(head.key)
    if (p.poison !== undefined) return false
    if (p.inFlight > 0 && (p.inFlightBroker !== leader || p.inFlight >= this.o.maxInFlight)) return false
    if (head.sequenceOrder !== undefined) return p.inFlight === 0
    if (this.identityOf(p) !== undefined) return true
    if (this.lastIdentityError !== undefined) head.lastError = this.lastIdentityError
    return false
  }

  /** Stamps identity and sequence on a batch drained for the first time (before it is encoded). */
  assign(b: ProducerBatch): void {
    if (b.sequenceOrder !== undefined) return
    const p = this.part(b.key)
    const id = this.identityOf(p)
    if (id === undefined)
      throw new SluiceError('INTERNAL_ERROR', 'a batch was drained before the producer id was known')
    b.producerId = id.producerId
    b.producerEpoch = id.epoch
    b.baseSequence = p.nextSeq
    b.sequenceOrder = ++this.order
    p.nextSeq = nextSequence(p.nextSeq, Math.max(1, b.recordCount))
    p.unresolved.push(b)
  }

  onSent(b: ProducerBatch, brokerId: number): void {
    const p = this.part(b.key)
    p.inFlight++
    p.inFlightBroker = brokerId
  }

  /** A response (or failure) for a sent batch arrived. */
  onAnswered(b: ProducerBatch): void {
    const p = this.part(b.key)
    p.inFlight = Math.max(0, p.inFlight - 1)
  }

  /** The batch completed or failed for good. */
  onSettled(b: ProducerBatch): void {
    if (b.sequenceOrder === undefined) return
    const p = this.parts.get(b.key)
    if (p === undefined) return
    const i = p.unresolved.indexOf(b)
    if (i >= 0) p.unresolved.splice(i, 1)
  }

  /** Whether a batch of the same partition with a lower sequence is still unresolved. */
  hasEarlierUnresolved(b: ProducerBatch): boolean {
    const p = this.parts.get(b.key)
    return p !== undefined && p.unresolved.indexOf(b) > 0
  }

  poison(key: string, err: SluiceError): void {
    const p = this.part(key)
    p.poison ??= err
  }

  isPoisoned(key: string): boolean {
    return this.parts.get(key)?.poison !== undefined
  }

  /**
   * For every poisoned partition with nothing in flight: its remaining sequenced batches with
   * the error to fail them with; the partition then restarts with a fresh producer id.
   */
  collectPoisoned(): Array<{ batch: ProducerBatch; err: SluiceError }> {
    const out: Array<{ batch: ProducerBatch; err: SluiceError }> = []
    for (const p of this.parts.values()) {
      const cause = p.poison
      if (cause === undefined || p.inFlight > 0) continue
      for (const batch of p.unresolved) {
        out.push({
          batch,
          err: new SluiceError(
            cause.code,
            `not appended: an earlier batch of ${batch.topic}/${batch.partition} failed (${cause.message})`,
            { topic: batch.topic, partition: batch.partition },
            { cause },
          ),
        })
      }
      p.unresolved = []
      p.poison = undefined
      p.nextSeq = 0
      p.own = undefined
      p.needsOwn = true
    }
    return out
  }

  private identityOf(p: PartitionSequencing): ProducerIdentity | undefined {
    if (!p.needsOwn) {
      this.fetchShared()
      return this.shared
    }
    if (p.own === undefined && !p.fetchingOwn && this.clock.nowMs() >= this.retryAtMs) {
      p.fetchingOwn = true
      this.o
        .fetchIdentity()
        .then(
          (id) => {
            p.own = id
          },
          (err: unknown) => {
            this.identityFailed(err)
          },
        )
        .finally(() => {
          p.fetchingOwn = false
          this.o.wakeup()
        })
    }
    return p.own
  }

  private fetchShared(): void {
    if (this.shared !== undefined || this.fetchingShared || this.clock.nowMs() < this.retryAtMs) return
    this.fetchingShared = true
    this.o
      .fetchIdentity()
      .then(
        (id) => {
          this.shared = id
          this.lastIdentityError = undefined
        },
        (err: unknown) => {
          this.identityFailed(err)
        },
      )
      .finally(() => {
        this.fetchingShared = false
        this.o.wakeup()
      })
  }

  private identityFailed(err: unknown): void {
    this.lastIdentityError =
      err instanceof SluiceError ? err : new SluiceError('UNKNOWN_SERVER_ERROR', String(err), {}, { cause: err })
    this.retryAtMs = this.clock.nowMs() + this.o.retryBackoffMs
  }

  private part(key: string): PartitionSequencing {
    let p = this.parts.get(key)
    if (p === undefined) {
      p = {
        own: undefined,
        needsOwn: false,
        fetchingOwn: false,
        nextSeq: 0,
        unresolved: [],
        inFlight: 0,
        inFlightBroker: -1,
        poison: undefined,
      }
      this.parts.set(key, p)
    }
    return p
  }
}
