/**
 * The record accumulator: per partition, a FIFO of batches; only the last one is open for
 * appends. A partition's head batch is ready to send when it is full (or a later one exists),
 * when it has lingered `lingerMs`, or during a flush; never before its retry backoff ends.
 *
 * Ordering: one drain takes at most one batch per partition (its head); the sender decides how
 * many batches of a partition may be in flight (`muted`, `mayDrain`: up to maxInFlight). A batch
 * that must be retried goes back to the head of its queue; with idempotence retried batches go
 * back ahead of every unsequenced batch, in sequence order.
 *
 * Draining groups the ready head batches by leader broker (one request per broker) and stops
 * adding to a request at `maxRequestBytes`; each drain starts one partition further on, so a
 * full request does not always leave the same partitions behind.
 *
 * Queues are kept per topic in an array indexed by partition, so the per-record path (add,
 * hasOpenBatch) does a Map lookup by topic name and an array index, and builds no string.
 * Single-threaded: called only from the event loop.
 */
import { systemClock, traceMark, traceOn, type Clock, type RecordInput } from '@sluice/protocol'
import { ProducerBatch } from './producer-batch.js'

export const BATCH_OVERHEAD_BYTES = 61

export interface AccumulatorOptions {
  batchBytes: number
  lingerMs: number
  /** What linger, retry backoff and delivery timeouts are measured on (default: systemClock). */
  clock?: Clock
}

export interface DrainOptions {
  /** Every batch is ready regardless of linger. */
  flush: boolean
  /** Partitions (ProducerBatch.key) that may not have another batch in flight now. */
  muted: ReadonlySet<string>
  /** Leader broker id, or undefined when unknown. */
  leaderOf: (topic: string, partition: number) => number | undefined
  /** Whether a request to this broker can be sent now (free in-flight slot). */
  canSend: (brokerId: number) => boolean
  maxRequestBytes: number
  /** Idempotence: whether this head batch may go to `leader` now (in-flight limits, retry order). */
  mayDrain?: (head: ProducerBatch, leader: number) => boolean
}

export interface DrainResult {
  byBroker: Map<number, ProducerBatch[]>
  /** When the next not-yet-ready batch becomes ready, if any. */
  nextReadyMs: number | undefined
  /** Some ready batch has no known leader: metadata should be refreshed. */
  unknownLeader: boolean
}

/** One topic's queues, indexed by partition; a missing or empty entry means nothing queued. */
type TopicQueues = Array<ProducerBatch[] | undefined>

export class RecordAccumulator {
  private readonly queues = new Map<string, TopicQueues>()
  /** Batches in all queues (for isEmpty without a scan). */
  private queuedCount = 0
  private rotation = 0
  private readonly clock: Clock
  /** Bytes of records appended and not yet completed (acknowledged or failed). */
  bufferedBytes = 0
  /** The queue add() used last (queues are never replaced, so this stays valid). */
  private lastQueue: ProducerBatch[] | undefined
  private lastTopic = ''
  private lastPartition = -1

  constructor(private readonly options: AccumulatorOptions) {
    this.clock = options.clock ?? systemClock
  }

  /**
   * Appends a record and returns its batch: the record's index is `batch.records.length - 1`
   * (until the batch is encoded), the batch is new when that is 0, and it reached batchBytes when
   * it is `closed` (a batch taken by the sender is never appended to).
   */
  add(topic: string, partition: number, record: RecordInput, sizeBytes: number): ProducerBatch {
    // Consecutive records mostly go to one partition (sticky batches, one key): reuse its queue.
    let q = this.lastQueue
    if (q === undefined || partition !== this.lastPartition || topic !== this.lastTopic) {
      q = this.queueOf(topic, partition)
      this.lastQueue = q
      this.lastTopic = topic
      this.lastPartition = partition
    }
    let batch = q[q.length - 1]
    if (batch === undefined || batch.closed || batch.sizeBytes + sizeBytes > this.options.batchBytes) {
      if (batch !== undefined) batch.closed = true
      batch = new ProducerBatch(topic, partition, this.clock.nowMs())
      batch.sizeBytes = BATCH_OVERHEAD_BYTES
      if (traceOn) traceMark(batch, 0)
      q.push(batch)
      this.queuedCount++
    }
    batch.records.push(record)
    batch.sizeBytes += sizeBytes
    this.bufferedBytes += sizeBytes
    if (batch.sizeBytes >= this.options.batchBytes) batch.closed = true
    return batch
  }

  /** Whether the partition has a batch still accepting records. */
  hasOpenBatch(topic: string, partition: number): boolean {
    const q = this.queues.get(topic)?.[partition]
    const last = q?.[q.length - 1]
    return last !== undefined && !last.closed
  }

  /** Takes the ready head batches, grouped by leader broker. */
  drain(o: DrainOptions): DrainResult {
    const now = this.clock.nowMs()
    const byBroker = new Map<number, ProducerBatch[]>()
    const requestBytes = new Map<number, number>()
    let nextReadyMs: number | undefined
    let unknownLeader = false
    const rotation = this.rotation++
    for (const tq of this.queues.values()) {
      const n = tq.length
      for (let j = 0; j < n; j++) {
        const q = tq[(rotation + j) % n]
        const head = q?.[0]
        if (q === undefined || head === undefined || o.muted.has(head.key)) continue
        const readyAt = this.readyAtMs(head, q.length, o.flush)
        if (readyAt > now) {
          nextReadyMs = nextReadyMs === undefined ? readyAt : Math.min(nextReadyMs, readyAt)
          continue
        }
        const leader = o.leaderOf(head.topic, head.partition)
        if (leader === undefined) {
          unknownLeader = true
          continue
        }
        if (!byBroker.has(leader) && !o.canSend(leader)) continue
        if (o.mayDrain !== undefined && !o.mayDrain(head, leader)) continue
        const used = requestBytes.get(leader) ?? 0
        // Always allow one batch per request, so an oversized batch still goes (and is judged by
        // the broker) instead of waiting forever.
        if (used > 0 && used + head.sizeBytes > o.maxRequestBytes) continue
        requestBytes.set(leader, used + head.sizeBytes)
        q.shift()
        this.queuedCount--
        head.closed = true
        const list = byBroker.get(leader)
        if (list === undefined) byBroker.set(leader, [head])
        else list.push(head)
      }
    }
    return { byBroker, nextReadyMs, unknownLeader }
  }

  /**
   * Puts a batch that must be retried back at the head of its partition's queue: before every
   * batch without a sequence, after retried batches with a lower sequence order.
   */
  reenqueue(batch: ProducerBatch): void {
    const q = this.queueOf(batch.topic, batch.partition)
    const order = batch.sequenceOrder
    let i = 0
    if (order !== undefined) {
      while (i < q.length && q[i]!.sequenceOrder !== undefined && q[i]!.sequenceOrder! < order) i++
    }
    q.splice(i, 0, batch)
    this.queuedCount++
  }

  /** Takes a queued batch out (it failed without being sent again). */
  remove(batch: ProducerBatch): void {
    const q = this.queues.get(batch.topic)?.[batch.partition]
    if (q === undefined) return
    const i = q.indexOf(batch)
    if (i < 0) return
    q.splice(i, 1)
    this.queuedCount--
  }

  /** Removes (and returns) queued batches created `deliveryTimeoutMs` ago or earlier. */
  expire(deliveryTimeoutMs: number): ProducerBatch[] {
    const expired: ProducerBatch[] = []
    if (this.queuedCount === 0) return expired
    const now = this.clock.nowMs()
    for (const tq of this.queues.values()) {
      for (const q of tq) {
        if (q === undefined) continue
        while (q[0] !== undefined && now - q[0].createdMs >= deliveryTimeoutMs) expired.push(q.shift()!)
      }
    }
    this.queuedCount -= expired.length
    return expired
  }

  /** Called once a batch is acknowledged or failed: frees its buffer space. */
  release(batch: ProducerBatch): void {
    this.bufferedBytes -= batch.sizeBytes - BATCH_OVERHEAD_BYTES
  }

  /** Every queued batch (not those in flight). */
  queued(): ProducerBatch[] {
    const out: ProducerBatch[] = []
    for (const tq of this.queues.values()) for (const q of tq) if (q !== undefined) out.push(...q)
    return out
  }

  get isEmpty(): boolean {
    return this.queuedCount === 0
  }

  private queueOf(topic: string, partition: number): ProducerBatch[] {
    let tq = this.queues.get(topic)
    if (tq === undefined) {
      tq = []
      this.queues.set(topic, tq)
    }
    let q = tq[partition]
    if (q === undefined) {
      // Fill holes so the array stays packed (a holey array is slower to index).
      for (let p = tq.length; p < partition; p++) tq.push(undefined)
      q = []
      tq[partition] = q
    }
    return q
  }

  private readyAtMs(head: ProducerBatch, queueLength: number, flush: boolean): number {
    const base = head.closed || queueLength > 1 || flush ? 0 : head.createdMs + this.options.lingerMs
    return Math.max(base, head.retryAtMs)
  }
}
