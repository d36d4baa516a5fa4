/**
 * The producer: send() partitions records, appends them to the accumulator and resolves once
 * the brokers acknowledged them per `acks`. Memory is bounded by `bufferBytes`: when that many
 * bytes wait for acknowledgement, send() waits before appending more (backpressure); waiters
 * are woken in arrival order, only as many as the freed space fits.
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
   * Produce requests outstanding per broker, and batches in flight per partition (Kafka's
   * max.in.flight.requests.per.connection). Default 5. With idempotence at most 5 (the broker's
   * dedup window) and order is kept across retries. Without idempotence (acks 0/1), a value
   * above 1 lets a retried batch land after a later batch of its partition: records can be
   * reordered on retry, as in Kafka. Use 1 for strict order without idempotence.
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
  send(request: { topic: string; records: ProducerRecord[] }): Promise<RecordMetadata[]>
  /** Sends every buffered record now and waits until all records sent so far are settled. */
  flush(): Promise<void>
  /** Flushes, then closes the streams. Later send() calls reject with CLIENT_CLOSED. */
  close(): Promise<void>
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

export function resolveProducerOptions(o: ProducerOptions, client: ResolvedConnectOptions): ResolvedProducerOptions {
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
    c.check(
      maxInFlight <= MAX_IDEMPOTENT_IN_FLIGHT,
      `idempotent: true needs maxInFlight <= ${MAX_IDEMPOTENT_IN_FLIGHT}, got ${maxInFlight}`,
      'type',
    )
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

export function toBytes(v: string | Buffer | Uint8Array | null | undefined, what: string): Buffer | null {
  if (v === null || v === undefined) return null
  if (typeof v === 'string') return Buffer.from(v, 'utf8')
  if (Buffer.isBuffer(v)) return v
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength)
  throw new TypeError(`${what} must be a string, Buffer or null, got ${typeof v}`)
}

function toHeaders(h: HeadersInput | undefined): RecordHeader[] {
  if (h === undefined) return []
  if (Array.isArray(h)) return h.map((x) => ({ key: String(x.key), value: toBytes(x.value, 'header value') }))
  return Object.entries(h).map(([key, value]) => ({ key, value: toBytes(value, 'header value') }))
}

function toTimestamp(t: number | bigint | Date | undefined, now: bigint): bigint {
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
  private readonly spaceWaiters: Array<{ size: number; resolve: () => void }> = []
  /** Per topic: resolves when the latest send() call has appended its records. */
  private readonly topicTurns = new Map<string, Promise<void>>()
  private closing: Promise<void> | undefined

  constructor(
    private readonly cache: MetadataCache,
    pool: ConnectionPool,
    private readonly options: ResolvedProducerOptions,
    client: ResolvedConnectOptions,
    log: Logger,
  ) {
    this.acc = new RecordAccumulator({ batchBytes: options.batchBytes, lingerMs: options.lingerMs })
    this.chooser = new PartitionChooser({ partitioner: options.partitioner, keylessStrategy: options.keylessStrategy })
    const idempotence = options.idempotent
      ? new IdempotenceManager({
          maxInFlight: options.maxInFlight,
          fetchIdentity: () => initProducerId(cache, pool, client, options.deliveryTimeoutMs),
          wakeup: () => {
            this.sender.wakeup()
          },
          retryBackoffMs: client.retry.initialBackoffMs,
        })
      : undefined
    this.sender = new Sender(
      this.acc,
      cache,
      pool,
      {
        acks: options.acks,
        compression: options.compression,
        maxInFlight: options.maxInFlight,
        deliveryTimeoutMs: options.deliveryTimeoutMs,
        requestTimeoutMs: options.requestTimeoutMs,
        clientId: client.clientId,
        retry: client.retry,
        idempotence,
        dataTransport: client.dataTransport,
      },
      log,
    )
    idempotence?.start()
    this.sender.onBatchDone = () => {
      this.wakeSpaceWaiters()
    }
  }

  async send(request: { topic: string; records: ProducerRecord[] }): Promise<RecordMetadata[]> {
    if (this.closing !== undefined) throw new SluiceError('CLIENT_CLOSED', 'the producer is closed')
    if (
      request === null ||
      typeof request !== 'object' ||
      typeof request.topic !== 'string' ||
      !Array.isArray(request.records)
    ) {
      throw new TypeError('send() needs { topic: string, records: ProducerRecord[] }')
    }
    const { topic, records } = request
    const now = BigInt(Date.now())
    // Every record is checked and converted before any is appended, so malformed input rejects
    // the whole call and appends nothing. One plain loop: no closure, no wrapper object and no
    // headers array per record (the hot path of a producer-bound benchmark).
    const n = records.length
    const inputs = new Array<RecordInput>(n)
    let explicit: Array<number | undefined> | undefined // only when some record names a partition
    let maxExplicit = -1
    for (let i = 0; i < n; i++) {
      const r = records[i]
      if (r === null || typeof r !== 'object') throw new TypeError(`records[${i}] must be an object`)
      const partition = r.partition
      if (partition !== undefined) {
        if (!Number.isInteger(partition) || partition < 0) {
          throw new RangeError(`records[${i}].partition must be a non-negative integer, got ${String(partition)}`)
        }
        explicit ??= new Array<number | undefined>(n)
        explicit[i] = partition
        if (partition > maxExplicit) maxExplicit = partition
      }
      // Buffers and nulls (the common case) skip toBytes and the error-message string it needs.
      const key = r.key
      const value = r.value
      inputs[i] = {
        key: key === undefined || key === null ? null : Buffer.isBuffer(key) ? key : toBytes(key, `records[${i}].key`),
        value: value === null || Buffer.isBuffer(value) ? value : toBytes(value, `records[${i}].value`),
        headers: r.headers === undefined ? undefined : toHeaders(r.headers),
        timestamp: r.timestamp === undefined ? now : toTimestamp(r.timestamp, now),
      }
    }
    if (n === 0) return []
    // Concurrent send() calls for one topic append in call order, also while the first of them
    // waits for the topic's metadata (retry backoffs would otherwise let a later call overtake).
    const previous = this.topicTurns.get(topic) ?? Promise.resolve()
    let endTurn!: () => void
    const turn = new Promise<void>((resolve) => {
      endTurn = resolve
    })
    this.topicTurns.set(topic, turn)
    try {
      await previous
      return await this.appendAndWait(topic, inputs, explicit, maxExplicit, endTurn)
    } finally {
      endTurn()
      if (this.topicTurns.get(topic) === turn) this.topicTurns.delete(topic)
    }
  }

  /** Appends `inputs` (calling `appended` once all are in the accumulator) and waits for their acknowledgements. */
  private async appendAndWait(
    topic: string,
    inputs: RecordInput[],
    explicit: Array<number | undefined> | undefined,
    maxExplicit: number,
    appended: () => void,
  ): Promise<RecordMetadata[]> {
    let info = await this.cache.topic(topic, { deadlineMs: this.options.deliveryTimeoutMs })
    if (maxExplicit >= info.partitions.length) {
      // maybe partitions were just added
      info = await this.cache.topic(topic, { deadlineMs: this.options.deliveryTimeoutMs, fresh: true })
      if (maxExplicit >= info.partitions.length) {
        throw new SluiceError(
          'UNKNOWN_TOPIC_OR_PARTITION',
          `topic ${topic} has ${info.partitions.length} partitions, a record names partition ${maxExplicit}`,
          { topic, partition: maxExplicit },
        )
      }
    }
    const partitionCount = info.partitions.length
    const acc = this.acc
    const bufferBytes = this.options.bufferBytes
    const hasOpenBatch = (p: number): boolean => acc.hasOpenBatch(topic, p)
    const choice: { key: Buffer | null; value: Buffer | null; partition: number | undefined } = {
      key: null,
      value: null,
      partition: undefined,
    }
    // Keyless records without an explicit partition go where the sticky strategy puts them: the
    // partition of the previous such record as long as its batch is still open (see
    // PartitionChooser.stickyPartition). Only this call appends to the topic until `appended()`
    // (topicTurns), so the chooser would answer stickyBatch's partition while that batch is
    // open; the check needs no Map lookup and no call per record.
    const keylessSticky = this.options.partitioner === undefined && this.options.keylessStrategy === 'sticky'
    let stickyBatch: ProducerBatch | undefined
    // One continuation per batch touched (not per record) fills `out` for that batch's records.
    // A batch's records are kept as runs [firstInput, firstIndexInBatch, count, ...]: records
    // appended one after another to one batch (the usual case) make a single run.
    const out = new Array<RecordMetadata>(inputs.length)
    const perBatch = new Map<ProducerBatch, number[]>()
    const waits: Array<Promise<void>> = []
    const settle = (batch: ProducerBatch, runs: number[]): Promise<void> =>
      batch.done.then((r) => {
        const partition = batch.partition
        const appendTime = r.logAppendTimeMs >= 0n ? r.logAppendTimeMs : undefined
        const base = r.baseOffset
        for (let j = 0; j < runs.length; j += 3) {
          const first = runs[j]!
          const count = runs[j + 2]!
          // One bigint per record: the previous offset plus one (acks=0: every offset is -1n).
          let offset = base < 0n ? -1n : base + BigInt(runs[j + 1]!)
          const step = base < 0n ? 0n : 1n
          for (let i = first; i < first + count; i++) {
            out[i] = { topic, partition, offset, timestamp: appendTime ?? inputs[i]!.timestamp! }
            offset += step
          }
        }
      })
    let lastBatch: ProducerBatch | undefined
    let lastRuns: number[] = []
    try {
      for (let i = 0; i < inputs.length; i++) {
        const input = inputs[i]!
        if (this.closing !== undefined) throw new SluiceError('CLIENT_CLOSED', 'the producer was closed during send()')
        const key = input.key ?? null
        const forced = explicit?.[i]
        let partition: number
        const stickyFastPath = keylessSticky && key === null && forced === undefined
        if (stickyFastPath && stickyBatch !== undefined && !stickyBatch.closed) {
          partition = stickyBatch.partition
        } else {
          choice.key = key
          choice.value = input.value
          choice.partition = forced
          partition = this.chooser.choose(topic, choice, partitionCount, hasOpenBatch)
        }
        const size = estimateRecordBytes(input)
        if (acc.bufferedBytes > 0 && acc.bufferedBytes + size > bufferBytes) {
          // Backpressure: register what was appended so far, then wait for space.
          for (const [b, runs] of perBatch) waits.push(settle(b, runs))
          perBatch.clear()
          lastBatch = undefined
          while (acc.bufferedBytes > 0 && acc.bufferedBytes + size > bufferBytes && this.closing === undefined) {
            await this.waitForSpace(size)
          }
          if (this.closing !== undefined)
            throw new SluiceError('CLIENT_CLOSED', 'the producer was closed during send()')
          // The partition chosen before the wait stands; if the sender took stickyBatch meanwhile,
          // it is closed now and the next keyless record asks the chooser again.
        }
        const batch = acc.add(topic, partition, input, size)
        const index = batch.records.length - 1
        if (index === 0 || batch.closed) this.sender.wakeup() // a new batch, or a full one
        if (stickyFastPath) stickyBatch = batch
        if (batch === lastBatch) {
          const r = lastRuns.length - 3
          if (lastRuns[r]! + lastRuns[r + 2]! === i && lastRuns[r + 1]! + lastRuns[r + 2]! === index) {
            lastRuns[r + 2]!++
            continue
          }
        } else {
          let runs = perBatch.get(batch)
          if (runs === undefined) {
            runs = []
            perBatch.set(batch, runs)
          }
          lastBatch = batch
          lastRuns = runs
        }
        lastRuns.push(i, index, 1)
      }
    } catch (err) {
      for (const w of waits) w.catch(() => {}) // already queued; their outcome is moot now
      throw err
    }
    for (const [b, runs] of perBatch) waits.push(settle(b, runs))
    appended()
    await Promise.all(waits)
    return out
  }

  /**
   * Waits until `size` more bytes fit in bufferBytes (or nothing is buffered). Waiters are served
   * in arrival order, and a completed batch wakes only those that fit now.
   */
  private async waitForSpace(size: number): Promise<void> {
    await new Promise<void>((resolve) => {
      this.spaceWaiters.push({ size, resolve })
    })
  }

  private wakeSpaceWaiters(): void {
    const w = this.spaceWaiters
    if (w.length === 0) return
    // Count bytes the woken ones are about to append, so we do not wake more than fit.
    let projected = this.acc.bufferedBytes
    let woken = 0
    while (woken < w.length) {
      const next = w[woken]!
      if (this.closing === undefined && projected > 0 && projected + next.size > this.options.bufferBytes) break
      projected += next.size
      woken++
    }
    for (const x of w.splice(0, woken)) x.resolve()
  }

  async flush(): Promise<void> {
    await this.sender.flush()
  }

  async close(): Promise<void> {
    this.closing ??= (async () => {
      await this.sender.flush()
      this.sender.close(new SluiceError('CLIENT_CLOSED', 'the producer was closed'))
      for (const w of this.spaceWaiters.splice(0)) w.resolve()
    })()
    await this.closing
  }
}
