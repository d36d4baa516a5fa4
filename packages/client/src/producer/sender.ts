/**
 * The sender moves ready batches from the accumulator to the brokers: one Produce request per
 * leader broker per round, on a long-lived data channel per broker (network/data-channel.ts:
 * Kafka Produce on a TCP connection to the broker's Kafka listener, or a gRPC bidi Produce stream;
 * network/data-route.ts picks) with at most `maxInFlight` requests outstanding. It runs in rounds triggered by wakeups (new or full batch,
 * response, metadata refresh) and by one timer set to the earliest linger expiry.
 *
 * Per partition outcome: success completes the batch; a retriable error (NOT_LEADER, unknown
 * partition, broken stream, timeout, ...) re-enqueues it with backoff and, for stale-metadata
 * errors, refreshes metadata so the next round routes it to the new leader; once
 * `deliveryTimeoutMs` has passed since the batch was created it fails with DELIVERY_TIMEOUT
 * (cause: the last error). Non-retriable errors fail the batch at once.
 *
 * In flight per partition: up to `maxInFlight` batches (Kafka's
 * max.in.flight.requests.per.connection), each round draining again while partitions and
 * streams have room. Without idempotence a retried batch can then land after a later batch of
 * its partition that succeeded first (Kafka's documented behaviour; maxInFlight 1 keeps strict
 * order). Idempotent producers (idempotence.ts) keep order across retries: batches carry
 * producer id, epoch and sequence, retries are re-queued in sequence order and sent only when
 * nothing else of the partition is in flight, OUT_OF_ORDER_SEQUENCE_NUMBER behind an earlier
 * failed batch is retried, and a final failure of a sequenced batch fails the rest of its
 * partition's sequence and resets it.
 */
import {
  SluiceError,
  encodeRecordBatch,
  systemClock,
  toBigInt,
  traceMark,
  traceOn,
  traceProduced,
  type Clock,
  type CompressionType,
  type Timer,
  type wire,
} from '@sluice/protocol'
import type { Logger } from '../logger.js'
import type { ConnectionPool } from '../network/connection-pool.js'
import type { DataChannel } from '../network/data-channel.js'
import { dataRoute } from '../network/data-route.js'
import { KafkaDataChannel } from '../network/kafka-data-channel.js'
import type { MetadataCache } from '../network/metadata-cache.js'
import { RequestStream } from '../network/request-stream.js'
import { DEFAULT_DATA_TRANSPORT, type DataTransport, type RetryOptions } from '../options.js'
import { backoffMs } from '../retry.js'
import type { RecordAccumulator } from './accumulator.js'
import type { IdempotenceManager } from './idempotence.js'
import { kafkaProduceMapping } from './kafka-produce-mapping.js'
import type { ProducerBatch } from './producer-batch.js'

/** Upper bound of one Produce request; well under the 64 MiB gRPC message limit. */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024

export interface SenderOptions {
  acks: 0 | 1 | -1
  compression: CompressionType
  maxInFlight: number
  deliveryTimeoutMs: number
  requestTimeoutMs: number
  clientId: string
  retry: RetryOptions
  /** Set for idempotent producers. */
  idempotence?: IdempotenceManager
  /** Times linger wake-ups, backoffs and delivery timeouts; the accumulator's clock (default: systemClock). */
  clock?: Clock
  /** What Produce travels over (ConnectOptions.dataTransport; default DEFAULT_DATA_TRANSPORT). */
  dataTransport?: DataTransport
}

type ProduceStream = DataChannel<wire.ProduceRequest, wire.ProduceResponse__Output>

export class Sender {
  private readonly streams = new Map<number, { key: string; transport: DataTransport; stream: ProduceStream }>()
  /** Without idempotence: batches in flight per partition, and the partitions at maxInFlight. */
  private readonly partitionInFlight = new Map<string, number>()
  private readonly muted = new Set<string>()
  private readonly inFlight = new Set<ProducerBatch>()
  private scheduled = false
  private timer: Timer | undefined
  private timerAtMs = Infinity
  private flushes = 0
  private closed = false
  private readonly idem: IdempotenceManager | undefined
  private readonly clock: Clock
  private static readonly NONE_MUTED: ReadonlySet<string> = new Set()
  /** Called whenever batches complete, so blocked send() calls can recheck buffer space. */
  onBatchDone: () => void = () => {}

  constructor(
    private readonly acc: RecordAccumulator,
    private readonly cache: MetadataCache,
    private readonly pool: ConnectionPool,
    private readonly options: SenderOptions,
    private readonly log: Logger,
  ) {
    this.idem = options.idempotence
    this.clock = options.clock ?? systemClock
  }

  /** Runs a round soon (coalesced). */
  wakeup(): void {
    if (this.scheduled || this.closed) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      this.round()
    })
  }

  /** Resolves once every batch appended before the call is completed or failed. */
  async flush(): Promise<void> {
    const pending = [...this.acc.queued(), ...this.inFlight].map(async (b) => await b.done)
    if (pending.length === 0) return
    this.flushes++
    this.wakeup()
    try {
      await Promise.allSettled(pending)
    } finally {
      this.flushes--
    }
  }

  /** Stops the sender: queued and in-flight batches fail with `err`, streams are closed. */
  close(err: SluiceError): void {
    this.closed = true
    this.timer?.cancel()
    for (const b of [...this.acc.queued(), ...this.inFlight]) this.finish(b, err)
    for (const { stream } of this.streams.values()) stream.close()
    this.streams.clear()
  }

  private round(): void {
    if (this.closed) return
    try {
      this.roundUnsafe()
    } catch (err) {
      // never let a bug escape into a timer callback and kill the process
      this.log.error({ err }, 'producer send round failed')
      this.schedule(this.clock.nowMs() + this.options.retry.initialBackoffMs)
    }
  }

  private roundUnsafe(): void {
    for (const b of this.acc.expire(this.options.deliveryTimeoutMs)) this.failDelivery(b)
    if (this.idem !== undefined) {
      for (const { batch, err } of this.idem.collectPoisoned()) {
        this.acc.remove(batch)
        this.finish(batch, err)
      }
    }
    const idem = this.idem
    let drained: ReturnType<RecordAccumulator['drain']>
    // One request per broker per drain; drain again (a partition may have up to maxInFlight
    // batches out) until nothing more is ready or the streams are full.
    for (let i = 0; ; i++) {
      drained = this.acc.drain({
        flush: this.flushes > 0,
        muted: idem !== undefined ? Sender.NONE_MUTED : this.muted,
        mayDrain: idem !== undefined ? (head, leader) => idem.mayDrain(head, leader) : undefined,
        leaderOf: (t, p) => this.cache.leaderOf(t, p)?.brokerId,
        canSend: (id) => this.streamFor(id)?.hasFreeSlot ?? true, // unknown broker: send() fails retriably
        maxRequestBytes: MAX_REQUEST_BYTES,
      })
      for (const [brokerId, batches] of drained.byBroker) this.send(brokerId, batches)
      if (drained.byBroker.size === 0 || i + 1 >= this.options.maxInFlight) break
    }
    const { nextReadyMs, unknownLeader } = drained
    if (unknownLeader) {
      this.cache.refresh().then(
        () => {
          this.wakeup()
        },
        (err: unknown) => {
          this.log.debug({ err }, 'metadata refresh failed')
          this.schedule(this.clock.nowMs() + this.options.retry.initialBackoffMs)
        },
      )
    }
    if (nextReadyMs !== undefined) this.schedule(nextReadyMs)
    // Queued batches must still expire even when nothing else wakes us.
    if (!this.acc.isEmpty) this.schedule(this.clock.nowMs() + Math.min(this.options.deliveryTimeoutMs, 1000))
  }

  private schedule(atMs: number): void {
    if (this.closed || atMs >= this.timerAtMs) return
    this.timer?.cancel()
    this.timerAtMs = atMs
    this.timer = this.clock.setTimeout(
      () => {
        this.timerAtMs = Infinity
        this.round()
      },
      Math.max(0, atMs - this.clock.nowMs()),
    )
  }

  private streamFor(brokerId: number): ProduceStream | undefined {
    const node = this.cache.brokers.get(brokerId)
    if (node === undefined) return undefined
    const route = dataRoute(node, this.options.dataTransport ?? DEFAULT_DATA_TRANSPORT, this.options.acks !== 0)
    const existing = this.streams.get(brokerId)
    if (existing !== undefined && existing.key === route.key) return existing.stream
    // The broker moved (or its Kafka listener did): what is still in flight there is retried.
    existing?.stream.close(movedError(brokerId))
    const name = `produce to broker ${brokerId}`
    let stream: ProduceStream
    if (route.transport === 'kafka') {
      stream = new KafkaDataChannel(kafkaProduceMapping, {
        host: route.host,
        port: route.port,
        clientId: this.options.clientId,
        maxInFlight: this.options.maxInFlight,
        name,
        connectTimeoutMs: this.options.requestTimeoutMs,
      })
    } else {
      const client = this.pool.brokerClient(route.endpoint)
      stream = new RequestStream(() => client.Produce(), this.options.maxInFlight, name)
    }
    this.streams.set(brokerId, { key: route.key, transport: route.transport, stream })
    return stream
  }

  private send(brokerId: number, drained: ProducerBatch[]): void {
    const stream = this.streamFor(brokerId)
    const topics = new Map<string, wire.PartitionProduceData[]>()
    const sendable: ProducerBatch[] = []
    for (const b of drained) {
      try {
        // Encoded once; retries resend the same bytes. The records are not needed afterwards.
        if (b.encoded === undefined) {
          b.recordCount = b.records.length
          this.idem?.assign(b)
          b.encoded = encodeRecordBatch(b.records, {
            compression: this.options.compression,
            ...(b.sequenceOrder !== undefined
              ? { producerId: b.producerId, producerEpoch: b.producerEpoch, baseSequence: b.baseSequence }
              : {}),
          })
        }
        b.records.length = 0
      } catch (err) {
        const e =
          err instanceof SluiceError
            ? err
            : new SluiceError('INVALID_RECORD', `encoding the batch failed: ${String(err)}`, {}, { cause: err })
        if (b.sequenceOrder !== undefined) this.idem?.poison(b.key, e) // its sequence will never reach the broker
        this.finish(b, e)
        continue
      }
      this.idem?.onSent(b, brokerId)
      sendable.push(b)
      b.attempts++
      if (this.idem === undefined) this.addInFlight(b.key, 1)
      this.inFlight.add(b)
      const list = topics.get(b.topic) ?? []
      list.push({ partition: b.partition, records: b.encoded })
      topics.set(b.topic, list)
    }
    if (sendable.length === 0) return
    const batches = sendable
    const req: wire.ProduceRequest = {
      acks: this.options.acks,
      timeout_ms: this.options.requestTimeoutMs,
      client_id: this.options.clientId,
      topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
    }
    const sent =
      stream === undefined
        ? Promise.reject(new SluiceError('BROKER_NOT_AVAILABLE', `broker ${brokerId} is not in the metadata`))
        : stream.request(req, {
            timeoutMs: this.options.requestTimeoutMs + 5000,
            expectResponse: this.options.acks !== 0,
          })
    if (traceOn) for (const b of batches) traceMark(b, 1)
    sent
      .then(
        (res) => {
          this.onResponse(batches, res)
        },
        (err: unknown) => {
          const e =
            err instanceof SluiceError ? err : new SluiceError('NETWORK_EXCEPTION', String(err), {}, { cause: err })
          for (const b of batches) {
            if (b.sequenceOrder !== undefined) this.idem?.onAnswered(b)
            this.onError(b, e)
          }
        },
      )
      .finally(() => {
        if (this.idem === undefined) for (const b of batches) this.addInFlight(b.key, -1)
        this.wakeup()
      })
      .catch((err: unknown) => {
        this.log.error({ err }, 'produce response handling failed')
      })
  }

  private addInFlight(key: string, delta: number): void {
    const n = (this.partitionInFlight.get(key) ?? 0) + delta
    if (n <= 0) this.partitionInFlight.delete(key)
    else this.partitionInFlight.set(key, n)
    if (n >= this.options.maxInFlight) this.muted.add(key)
    else this.muted.delete(key)
  }

  /** @internal tests: what the Produce channel to each broker it has talked to travels over. */
  transports(): Map<number, DataTransport> {
    return new Map([...this.streams].map(([id, e]) => [id, e.transport]))
  }

  /** @internal tests: batches of the partition in flight right now. */
  inFlightOf(topic: string, partition: number): number {
    let n = 0
    for (const b of this.inFlight) if (b.topic === topic && b.partition === partition) n++
    return n
  }

  private onResponse(batches: ProducerBatch[], res: wire.ProduceResponse__Output | undefined): void {
    if (res === undefined) {
      // acks=0: written is all we will ever know
      for (const b of batches) this.finish(b, { baseOffset: -1n, logAppendTimeMs: -1n })
      return
    }
    const byKey = new Map<string, wire.PartitionProduceResponse__Output>()
    for (const t of res.topics) for (const p of t.partitions) byKey.set(`${t.topic}\u0000${p.partition}`, p)
    for (const b of batches) {
      const p = byKey.get(b.key)
      if (b.sequenceOrder !== undefined) this.idem?.onAnswered(b)
      if (p === undefined) {
        this.finish(
          b,
          new SluiceError('UNKNOWN_SERVER_ERROR', 'the produce response did not mention this partition', {
            topic: b.topic,
            partition: b.partition,
          }),
        )
      } else if (p.error_code === 0) {
        if (traceOn) traceProduced(b, toBigInt(p.base_offset))
        this.finish(b, { baseOffset: toBigInt(p.base_offset), logAppendTimeMs: toBigInt(p.log_append_time_ms) })
      } else {
        this.onError(b, SluiceError.fromId(p.error_code, p.error_message, { topic: b.topic, partition: b.partition }))
      }
    }
  }

  private onError(b: ProducerBatch, err: SluiceError): void {
    this.inFlight.delete(b)
    let retriable = err.retriable
    if (this.idem !== undefined && b.sequenceOrder !== undefined && !this.closed) {
      // The broker rejected this batch because an earlier one of its partition is missing: that
      // earlier batch is being retried, and this one goes after it, unchanged.
      if (err.code === 'OUT_OF_ORDER_SEQUENCE_NUMBER' && this.idem.hasEarlierUnresolved(b)) retriable = true
      // A final failure leaves a hole in the partition's sequence: the rest of it cannot succeed.
      if (!retriable) this.idem.poison(b.key, err)
    }
    if (this.closed || !retriable) {
      this.finish(b, err)
      return
    }
    b.lastError = err
    if (this.clock.nowMs() - b.createdMs >= this.options.deliveryTimeoutMs) {
      this.failDelivery(b)
      return
    }
    this.log.debug({ err, topic: b.topic, partition: b.partition, attempts: b.attempts }, 'retrying produce')
    b.retryAtMs = this.clock.nowMs() + backoffMs(this.options.retry, b.attempts)
    if (err.staleMetadata) this.cache.requestRefresh()
    this.acc.reenqueue(b)
  }

  private failDelivery(b: ProducerBatch): void {
    const err = new SluiceError(
      'DELIVERY_TIMEOUT',
      `records for ${b.topic}/${b.partition} were not acknowledged within ${this.options.deliveryTimeoutMs} ms` +
        (b.lastError !== undefined ? ` (last error: ${b.lastError.code}: ${b.lastError.message})` : ''),
      { topic: b.topic, partition: b.partition, attempts: b.attempts, lastErrorCode: b.lastError?.code },
      { cause: b.lastError },
    )
    // The broker may or may not have this batch: later sequences of its partition are unsafe.
    if (b.sequenceOrder !== undefined) this.idem?.poison(b.key, err)
    this.finish(b, err)
  }

  private finish(b: ProducerBatch, outcome: { baseOffset: bigint; logAppendTimeMs: bigint } | SluiceError): void {
    this.inFlight.delete(b)
    if (b.settled) return
    this.idem?.onSettled(b)
    this.acc.release(b)
    if (outcome instanceof SluiceError) b.fail(outcome)
    else b.complete(outcome)
    this.onBatchDone()
  }
}

/** Why requests in flight on a replaced channel failed: retriable, and a reason to refresh metadata. */
function movedError(brokerId: number): SluiceError {
  return new SluiceError('NETWORK_EXCEPTION', `broker ${brokerId}'s address changed; the connection was replaced`)
}
