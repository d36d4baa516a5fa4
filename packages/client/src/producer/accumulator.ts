/**
 * The record accumulator: per partition, a FIFO of batches; only the last one is open for
 * appends. A partition's head batch is ready to send when it is full (or a later one exists),
 * when it has lingered `lingerMs`, or during a flush; never before its retry backoff ends.
 *
 * Ordering: without idempotence the sender takes at most one batch per partition at a time and
 * mutes the partition until that batch's response arrives; a batch that must be retried goes
 * back to the head of its queue. With idempotence several batches of a partition may be in
 * flight (the sender's `mayDrain` decides); retried batches go back ahead of every unsequenced
 * batch, in sequence order. Either way records of one partition are appended in send order,
 * retries included.
 *
 * Draining groups the ready head batches by leader broker (one request per broker) and stops
 * adding to a request at `maxRequestBytes`. Single-threaded: called only from the event loop.
 */
import type { RecordInput } from '@sluice/protocol'
import { ProducerBatch } from './producer-batch.js'

export const BATCH_OVERHEAD_BYTES = 61

export interface AccumulatorOptions {
  batchBytes: number
  lingerMs: number
  now?: () => number
}

export interface DrainOptions {
  /** Every batch is ready regardless of linger. */
  flush: boolean
  /** Partitions (ProducerBatch.key) with a batch in flight. */
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

export class RecordAccumulator {
  private readonly queues = new Map<string, ProducerBatch[]>()
  private readonly now: () => number
  /** Bytes of records appended and not yet completed (acknowledged or failed). */
  bufferedBytes = 0

  constructor (private readonly options: AccumulatorOptions) {
    this.now = options.now ?? Date.now
  }

  /** Appends a record; `full` tells whether its batch reached batchBytes with it. */
  append (topic: string, partition: number, record: RecordInput, sizeBytes: number):
  { batch: ProducerBatch, index: number, newBatch: boolean, full: boolean } {
    const key = `${topic}\u0000${partition}`
    let q = this.queues.get(key)
    if (q === undefined) {
      q = []
      this.queues.set(key, q)
    }
    let batch = q[q.length - 1]
    let newBatch = false
    if (batch === undefined || batch.closed || batch.sizeBytes + sizeBytes > this.options.batchBytes) {
      if (batch !== undefined) batch.closed = true
      batch = new ProducerBatch(topic, partition, this.now())
      batch.sizeBytes = BATCH_OVERHEAD_BYTES
      q.push(batch)
      newBatch = true
    }
    batch.records.push(record)
    batch.sizeBytes += sizeBytes
    this.bufferedBytes += sizeBytes
    const full = batch.sizeBytes >= this.options.batchBytes
    if (full) batch.closed = true
    return { batch, index: batch.records.length - 1, newBatch, full }
  }

  /** Whether the partition has a batch still accepting records. */
  hasOpenBatch (topic: string, partition: number): boolean {
    const q = this.queues.get(`${topic}\u0000${partition}`)
    const last = q?.[q.length - 1]
    return last !== undefined && !last.closed
  }

  /** Takes the ready head batches, grouped by leader broker. */
  drain (o: DrainOptions): DrainResult {
    const now = this.now()
    const byBroker = new Map<number, ProducerBatch[]>()
    const requestBytes = new Map<number, number>()
    let nextReadyMs: number | undefined
    let unknownLeader = false
    for (const [key, q] of this.queues) {
      const head = q[0]
      if (head === undefined || o.muted.has(key)) continue
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
      head.closed = true
      if (q.length === 0) this.queues.delete(key)
      const list = byBroker.get(leader)
      if (list === undefined) byBroker.set(leader, [head])
      else list.push(head)
    }
    return { byBroker, nextReadyMs, unknownLeader }
  }

  /**
   * Puts a batch that must be retried back at the head of its partition's queue: before every
   * batch without a sequence, after retried batches with a lower sequence order.
   */
  reenqueue (batch: ProducerBatch): void {
    let q = this.queues.get(batch.key)
    if (q === undefined) {
      q = []
      this.queues.set(batch.key, q)
    }
    const order = batch.sequenceOrder
    let i = 0
    if (order !== undefined) {
      while (i < q.length && q[i]!.sequenceOrder !== undefined && q[i]!.sequenceOrder! < order) i++
    }
    q.splice(i, 0, batch)
  }

  /** Takes a queued batch out (it failed without being sent again). */
  remove (batch: ProducerBatch): void {
    const q = this.queues.get(batch.key)
    if (q === undefined) return
    const i = q.indexOf(batch)
    if (i >= 0) q.splice(i, 1)
    if (q.length === 0) this.queues.delete(batch.key)
  }

  /** Removes (and returns) queued batches created `deliveryTimeoutMs` ago or earlier. */
  expire (deliveryTimeoutMs: number): ProducerBatch[] {
    const now = this.now()
    const expired: ProducerBatch[] = []
    for (const [key, q] of this.queues) {
      while (q[0] !== undefined && now - q[0].createdMs >= deliveryTimeoutMs) expired.push(q.shift()!)
      if (q.length === 0) this.queues.delete(key)
    }
    return expired
  }

  /** Called once a batch is acknowledged or failed: frees its buffer space. */
  release (batch: ProducerBatch): void {
    this.bufferedBytes -= batch.sizeBytes - BATCH_OVERHEAD_BYTES
  }

  /** Every queued batch (not those in flight). */
  queued (): ProducerBatch[] {
    return [...this.queues.values()].flat()
  }

  get isEmpty (): boolean { return this.queues.size === 0 }

  private readyAtMs (head: ProducerBatch, queueLength: number, flush: boolean): number {
    const base = head.closed || queueLength > 1 || flush ? 0 : head.createdMs + this.options.lingerMs
    return Math.max(base, head.retryAtMs)
  }
}
