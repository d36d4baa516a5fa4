/**
 * The producer: send() partitions records, appends them to the accumulator and resolves once
 * the brokers acknowledged them per `acks`. Memory is bounded by `bufferBytes`: when that many
 * bytes wait for acknowledgement, send() waits before appending more (backpressure).
 */
import { SluiceError, type CompressionType, type RecordHeader, type RecordInput } from '@sluice/protocol'
import type { Logger } from '../logger.js'
import type { ConnectionPool } from '../network/connection-pool.js'
import type { MetadataCache } from '../network/metadata-cache.js'
import { OptionChecker, type ResolvedConnectOptions } from '../options.js'
import { RecordAccumulator } from './accumulator.js'
import { PartitionChooser, type KeylessStrategy, type Partitioner } from './partitioner.js'
import { IdempotenceManager, MAX_IDEMPOTENT_IN_FLIGHT } from './idempotence.js'
import { estimateRecordBytes, type ProducerBatch } from './producer-batch.js'
import { initProducerId } from './producer-id.js'
import { Sender } from './sender.js'

export interface ProducerOptions {
  /** 0: no acknowledgement (offsets are -1n); 1: the leader appended; 'all' / -1: every in-sync replica has it. Default 'all'. */
  acks?: 0 | 1 | -1 | 'all'
  /** How long a batch waits for more records before it is sent. Default 5 ms. */
  lingerMs?: number
  /** A batch is sent once it holds about this many (uncompressed) bytes. Default 256 KiB. */
  batchBytes?: number
  /** Bytes of unacknowledged records before send() waits. Default 32 MiB. */
  bufferBytes?: number
  compression?: CompressionType
  /** Chooses partitions for records without an explicit partition (keyed ones included). */
  partitioner?: Partitioner
  /** How records with neither key nor partition are spread. Default 'sticky'. */
  keylessStrategy?: KeylessStrategy
  /**
   * Produce requests outstanding per broker; with idempotence also the batches in flight per
   * partition (at most 5, the broker's dedup window). Default 5.
   */
  maxInFlight?: number
  /**
   * Idempotent delivery (default: on when acks is 'all'): the broker appends every batch exactly
   * once and in order per partition, retries and leader changes included. Needs acks 'all' and
   * maxInFlight <= 5: setting `idempotent: true` with anything else is a TypeError; leaving it
   * unset with acks 0/1 or maxInFlight > 5 turns it off (Kafka's rule).
   */
  idempotent?: boolean
  /** Time from send() until a record must be acknowledged, retries included. Default 120000 ms. */
  deliveryTimeoutMs?: number
  /** How long a broker may take to answer one Produce request. Default: the client's requestTimeoutMs. */
  requestTimeoutMs?: number
}

export type HeadersInput = Record<string, string | Buffer | null> | RecordHeader[]

export interface ProducerRecord {
  /** Strings are encoded as UTF-8. */
  key?: string | Buffer | null
  value: string | Buffer | null
  headers?: HeadersInput
  /** Wins over the partitioner; must exist. */
  partition?: number
  /** Milliseconds since the epoch; default: the time of send(). */
  timestamp?: number | bigint | Date
}

export interface RecordMetadata {
  topic: string
  partition: number
  /** -1n with acks=0. */
  offset: bigint
  /** The record's timestamp, or the broker's append time for LogAppendTime topics. */
  timestamp: bigint
}

export interface Producer {
  /**
   * Sends records to one topic. Resolves with one RecordMetadata per record, in input order, once
   * all of them are acknowledged per `acks` (acks=0: once written to the stream). Records of one
   * partition are appended in the order they were sent, retries included. Rejects with a
   * SluiceError: the topic's metadata could not be found (after retries), a non-retriable broker
   * error, DELIVERY_TIMEOUT, or CLIENT_CLOSED; with TypeError/RangeError for malformed input.
   * When some records of the call fail, the returned promise rejects with the first failure.
   */
  send (request: { topic: string, records: ProducerRecord[] }): Promise<RecordMetadata[]>
  /** Sends every buffered record now and waits until all records sent so far are settled. */
  flush (): Promise<void>
  /** Flushes, then closes the streams. Later send() calls reject with CLIENT_CLOSED. */
  close (): Promise<void>
}

interface ResolvedProducerOptions {
  acks: 0 | 1 | -1
  idempotent: boolean
  lingerMs: number
  batchBytes: number
  bufferBytes: number
  compression: CompressionType
  keylessStrategy: KeylessStrategy
  maxInFlight: number
  deliveryTimeoutMs: number
  requestTimeoutMs: number
  partitioner?: Partitioner
}

export function resolveProducerOptions (o: ProducerOptions, client: ResolvedConnectOptions): ResolvedProducerOptions {
  const c = new OptionChecker('producer')
  c.oneOf('acks', o.acks, [0, 1, -1, 'all'])
  c.int('lingerMs', o.lingerMs, 0)
  c.int('batchBytes', o.batchBytes, 1)
  c.int('bufferBytes', o.bufferBytes, 1)
  c.oneOf('compression', o.compression, ['none', 'gzip', 'snappy', 'lz4', 'zstd'])
  c.oneOf('keylessStrategy', o.keylessStrategy, ['sticky', 'round-robin'])
  c.int('maxInFlight', o.maxInFlight, 1, 1000)
  c.int('deliveryTimeoutMs', o.deliveryTimeoutMs, 1)
  c.int('requestTimeoutMs', o.requestTimeoutMs, 1)
  c.check(o.partitioner === undefined || typeof o.partitioner === 'function', 'partitioner must be a function', 'type')
  c.check(o.idempotent === undefined || typeof o.idempotent === 'boolean', 'idempotent must be a boolean', 'type')
  const acks = o.acks === 'all' || o.acks === undefined ? -1 : o.acks
  const maxInFlight = o.maxInFlight ?? 5
  if (o.idempotent === true) {
    c.check(acks === -1, `idempotent: true needs acks 'all', got ${JSON.stringify(o.acks)}`, 'type')
    c.check(maxInFlight <= MAX_IDEMPOTENT_IN_FLIGHT, `idempotent: true needs maxInFlight <= ${MAX_IDEMPOTENT_IN_FLIGHT}, got ${maxInFlight}`, 'type')
  }
  c.done()
  return {
    idempotent: o.idempotent ?? (acks === -1 && maxInFlight <= MAX_IDEMPOTENT_IN_FLIGHT),
    acks,
    lingerMs: o.lingerMs ?? 5,
    batchBytes: o.batchBytes ?? 256 * 1024,
    bufferBytes: o.bufferBytes ?? 32 * 1024 * 1024,
    compression: o.compression ?? 'none',
    keylessStrategy: o.keylessStrategy ?? 'sticky',
    maxInFlight,
    deliveryTimeoutMs: o.deliveryTimeoutMs ?? 120_000,
    requestTimeoutMs: o.requestTimeoutMs ?? client.requestTimeoutMs,
    partitioner: o.partitioner,
  }
}

export function toBytes (v: string | Buffer | Uint8Array | null | undefined, what: string): Buffer | null {
  if (v === null || v === undefined) return null
  if (typeof v === 'string') return Buffer.from(v, 'utf8')
  if (Buffer.isBuffer(v)) return v
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength)
  throw new TypeError(`${what} must be a string, Buffer or null, got ${typeof v}`)
}

function toHeaders (h: HeadersInput | undefined): RecordHeader[] {
  if (h === undefined) return []
  if (Array.isArray(h)) return h.map((x) => ({ key: String(x.key), value: toBytes(x.value, 'header value') }))
  return Object.entries(h).map(([key, value]) => ({ key, value: toBytes(value, 'header value') }))
}

function toTimestamp (t: number | bigint | Date | undefined, now: bigint): bigint {
  if (t === undefined) return now
  if (t instanceof Date) return BigInt(t.getTime())
  if (typeof t === 'bigint') return t
  if (typeof t === 'number' && Number.isFinite(t)) return BigInt(Math.trunc(t))
  throw new TypeError(`timestamp must be a number, bigint or Date, got ${String(t)}`)
}

export class ProducerImpl implements Producer {
  private readonly acc: RecordAccumulator
  private readonly sender: Sender
  private readonly chooser: PartitionChooser
  private readonly spaceWaiters: Array<() => void> = []
  /** Per topic: resolves when the latest send() call has appended its records. */
  private readonly topicTurns = new Map<string, Promise<void>>()
  private closing: Promise<void> | undefined

  constructor (private readonly cache: MetadataCache, pool: ConnectionPool,
    private readonly options: ResolvedProducerOptions, client: ResolvedConnectOptions, log: Logger) {
    this.acc = new RecordAccumulator({ batchBytes: options.batchBytes, lingerMs: options.lingerMs })
    this.chooser = new PartitionChooser({ partitioner: options.partitioner, keylessStrategy: options.keylessStrategy })
    const idempotence = options.idempotent
      ? new IdempotenceManager({
        maxInFlight: options.maxInFlight,
        fetchIdentity: () => initProducerId(cache, pool, client, options.deliveryTimeoutMs),
        wakeup: () => { this.sender.wakeup() },
        retryBackoffMs: client.retry.initialBackoffMs,
      })
      : undefined
    this.sender = new Sender(this.acc, cache, pool, {
      acks: options.acks,
      compression: options.compression,
      maxInFlight: options.maxInFlight,
      deliveryTimeoutMs: options.deliveryTimeoutMs,
      requestTimeoutMs: options.requestTimeoutMs,
      clientId: client.clientId,
      retry: client.retry,
      idempotence,
    }, log)
    idempotence?.start()
    this.sender.onBatchDone = () => { for (const w of this.spaceWaiters.splice(0)) w() }
  }

  async send (request: { topic: string, records: ProducerRecord[] }): Promise<RecordMetadata[]> {
    if (this.closing !== undefined) throw new SluiceError('CLIENT_CLOSED', 'the producer is closed')
    if (request === null || typeof request !== 'object' || typeof request.topic !== 'string' || !Array.isArray(request.records)) {
      throw new TypeError('send() needs { topic: string, records: ProducerRecord[] }')
    }
    const { topic } = request
    const now = BigInt(Date.now())
    const inputs = request.records.map((r, i) => {
      if (r === null || typeof r !== 'object') throw new TypeError(`records[${i}] must be an object`)
      if (r.partition !== undefined && (!Number.isInteger(r.partition) || r.partition < 0)) {
        throw new RangeError(`records[${i}].partition must be a non-negative integer, got ${String(r.partition)}`)
      }
      const input: RecordInput = {
        key: toBytes(r.key, `records[${i}].key`),
        value: toBytes(r.value, `records[${i}].value`),
        headers: toHeaders(r.headers),
        timestamp: toTimestamp(r.timestamp, now),
      }
      return { input, partition: r.partition }
    })
    if (inputs.length === 0) return []
    // Concurrent send() calls for one topic append in call order, also while the first of them
    // waits for the topic's metadata (retry backoffs would otherwise let a later call overtake).
    const previous = this.topicTurns.get(topic) ?? Promise.resolve()
    let endTurn!: () => void
    const turn = new Promise<void>((resolve) => { endTurn = resolve })
    this.topicTurns.set(topic, turn)
    try {
      await previous
      return await this.appendAndWait(topic, inputs, endTurn)
    } finally {
      endTurn()
      if (this.topicTurns.get(topic) === turn) this.topicTurns.delete(topic)
    }
  }

  /** Appends `inputs` (calling `appended` once all are in the accumulator) and waits for their acknowledgements. */
  private async appendAndWait (topic: string, inputs: Array<{ input: RecordInput, partition: number | undefined }>,
    appended: () => void): Promise<RecordMetadata[]> {
    let info = await this.cache.topic(topic, { deadlineMs: this.options.deliveryTimeoutMs })
    const maxExplicit = Math.max(-1, ...inputs.map((x) => x.partition ?? -1))
    if (maxExplicit >= info.partitions.length) { // maybe partitions were just added
      info = await this.cache.topic(topic, { deadlineMs: this.options.deliveryTimeoutMs, fresh: true })
      if (maxExplicit >= info.partitions.length) {
        throw new SluiceError('UNKNOWN_TOPIC_OR_PARTITION',
          `topic ${topic} has ${info.partitions.length} partitions, a record names partition ${maxExplicit}`, { topic, partition: maxExplicit })
      }
    }
    const partitionCount = info.partitions.length
    // One continuation per batch touched (not per record): fills `out` for that batch's records.
    const out = new Array<RecordMetadata>(inputs.length)
    const perBatch = new Map<ProducerBatch, number[]>() // batch -> [inputIndex, indexInBatch, ...]
    const waits: Array<Promise<void>> = []
    const settle = (batch: ProducerBatch, slots: number[]): Promise<void> => batch.done.then((r) => {
      for (let j = 0; j < slots.length; j += 2) {
        const i = slots[j]!
        const input = inputs[i]!.input
        out[i] = {
          topic,
          partition: batch.partition,
          offset: r.baseOffset < 0n ? -1n : r.baseOffset + BigInt(slots[j + 1]!),
          timestamp: r.logAppendTimeMs >= 0n ? r.logAppendTimeMs : input.timestamp!,
        }
      }
    })
    try {
      for (let i = 0; i < inputs.length; i++) {
        const { input, partition: explicit } = inputs[i]!
        if (this.closing !== undefined) throw new SluiceError('CLIENT_CLOSED', 'the producer was closed during send()')
        const partition = this.chooser.choose(topic, { key: input.key ?? null, value: input.value, partition: explicit },
          partitionCount, (p) => this.acc.hasOpenBatch(topic, p))
        const size = estimateRecordBytes(input)
        if (this.acc.bufferedBytes > 0 && this.acc.bufferedBytes + size > this.options.bufferBytes) {
          // Backpressure: register what was appended so far, then wait for space.
          for (const [b, slots] of perBatch) waits.push(settle(b, slots))
          perBatch.clear()
          while (this.acc.bufferedBytes > 0 && this.acc.bufferedBytes + size > this.options.bufferBytes) {
            await new Promise<void>((resolve) => { this.spaceWaiters.push(resolve) })
          }
        }
        const { batch, index, newBatch, full } = this.acc.append(topic, partition, input, size)
        if (newBatch || full) this.sender.wakeup()
        let slots = perBatch.get(batch)
        if (slots === undefined) {
          slots = []
          perBatch.set(batch, slots)
        }
        slots.push(i, index)
      }
    } catch (err) {
      for (const w of waits) w.catch(() => {}) // already queued; their outcome is moot now
      throw err
    }
    for (const [b, slots] of perBatch) waits.push(settle(b, slots))
    appended()
    await Promise.all(waits)
    return out
  }

  async flush (): Promise<void> {
    await this.sender.flush()
  }

  async close (): Promise<void> {
    this.closing ??= (async () => {
      await this.sender.flush()
      this.sender.close(new SluiceError('CLIENT_CLOSED', 'the producer was closed'))
      for (const w of this.spaceWaiters.splice(0)) w()
    })()
    await this.closing
  }
}
