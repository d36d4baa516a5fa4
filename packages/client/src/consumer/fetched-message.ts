/**
 * The ConsumerMessage the consumer hands out: a view of one record in the fetched bytes, whose
 * key, value and headers are decoded when first read (and kept), and whose offset and timestamp
 * are held as numbers while exact and made bigints when read (docs/decisions.md, "Consumer
 * messages are lazy views").
 *
 * Why: the consumer is bound by its per-record cost when it reads a topic from the beginning. A
 * message built eagerly cost an object, a Buffer view each for the key and the value, a headers
 * array and an offset bigint, whether or not the application read them. Here the record walk
 * (walkBatchLazily) still checks every record when the batch is taken, so a corrupt batch is
 * still reported before any of its messages is handed out, but it only notes where the key
 * starts; the one object per record is this one, seven fields.
 *
 * The fields are getters on the prototype, so `{ ...message }` and Object.keys() see the
 * internal fields, not the message's: read fields by name. util.inspect (console.log) shows the
 * decoded message. The bytes behind a message are the fetch response's (or the batch's
 * decompressed records), held as long as the message is.
 */
import { readRecordHeaders, readRecordKey, readRecordValue, type RecordHeader } from '@sluice/protocol'
import type { ConsumerMessage } from './consumer-types.js'

/** What every message of one record batch shares: where it came from and the bytes it reads. */
export interface MessageSource {
  readonly topic: string
  readonly partition: number
  /** The records section the key positions point into (the batch's, decompressed if it was). */
  readonly data: Buffer
}

/** A bigint field held as a number when exact (|v| < 2^53). */
function toBigIntField(v: number | bigint): bigint {
  return typeof v === 'number' ? BigInt(v) : v
}

export class FetchedMessage implements ConsumerMessage {
  private readonly src: MessageSource
  private readonly keyPos: number
  private readonly o: number | bigint
  private readonly t: number | bigint
  /** Decoded fields; undefined until first read (null is a decoded null). */
  private k: Buffer | null | undefined
  private v: Buffer | null | undefined
  private h: RecordHeader[] | undefined

  constructor(src: MessageSource, keyPos: number, offset: number | bigint, timestamp: number | bigint) {
    this.src = src
    this.keyPos = keyPos
    this.o = offset
    this.t = timestamp
    this.k = undefined
    this.v = undefined
    this.h = undefined
  }

  get topic(): string {
    return this.src.topic
  }

  get partition(): number {
    return this.src.partition
  }

  /** Exact (a bigint); made from the number the message holds each time it is read. */
  get offset(): bigint {
    return toBigIntField(this.o)
  }

  get timestamp(): bigint {
    return toBigIntField(this.t)
  }

  get key(): Buffer | null {
    let k = this.k
    if (k === undefined) this.k = k = readRecordKey(this.src.data, this.keyPos)
    return k
  }

  get value(): Buffer | null {
    let v = this.v
    if (v === undefined) this.v = v = readRecordValue(this.src.data, this.keyPos)
    return v
  }

  get headers(): RecordHeader[] {
    let h = this.h
    if (h === undefined) this.h = h = readRecordHeaders(this.src.data, this.keyPos)
    return h
  }

  /** console.log and util.inspect show the message, not the view's internals. */
  [Symbol.for('nodejs.util.inspect.custom')](): object {
    return {
      topic: this.topic,
      partition: this.partition,
      offset: this.offset,
      timestamp: this.timestamp,
      key: this.key,
      value: this.value,
      headers: this.headers,
    }
  }
}
