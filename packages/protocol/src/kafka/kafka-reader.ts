import {
  readBigInt64BE,
  readDoubleBE,
  readInt16BE,
  readInt32BE,
  readInt8,
  readUInt32BE,
  subarray,
} from '../buffer-methods.js'
import { KafkaWireError } from './kafka-wire-error.js'

const utf8 = new TextDecoder('utf-8', { fatal: false })

/** The tagged fields of an empty section (read-only: shared by every such section). */
export const NO_TAGGED_FIELDS: ReadonlyMap<number, Buffer> = new Map()

/**
 * Reads one Kafka message from a Buffer, moving a position forward. Bytes, records and tagged
 * values come back as subarray views of the input (no copies). Every read checks its bounds
 * first, so malformed or truncated input throws KafkaWireError (INVALID_REQUEST), never a
 * RangeError or a read past the end.
 */
export class KafkaReader {
  private pos: number

  constructor(
    private readonly buf: Buffer,
    offset = 0,
  ) {
    if (!Number.isInteger(offset) || offset < 0 || offset > buf.length) {
      throw new KafkaWireError(`start offset outside the ${buf.length}-byte buffer`, offset)
    }
    this.pos = offset
  }

  get position(): number {
    return this.pos
  }

  get remaining(): number {
    return this.buf.length - this.pos
  }

  private need(n: number, what: string): void {
    if (n > this.buf.length - this.pos) {
      throw new KafkaWireError(`${what} needs ${n} bytes, only ${this.buf.length - this.pos} left`, this.pos)
    }
  }

  int8(): number {
    this.need(1, 'int8')
    return readInt8(this.buf, this.pos++)
  }

  int16(): number {
    this.need(2, 'int16')
    const v = readInt16BE(this.buf, this.pos)
    this.pos += 2
    return v
  }

  int32(): number {
    this.need(4, 'int32')
    const v = readInt32BE(this.buf, this.pos)
    this.pos += 4
    return v
  }

  uint32(): number {
    this.need(4, 'uint32')
    const v = readUInt32BE(this.buf, this.pos)
    this.pos += 4
    return v
  }

  int64(): bigint {
    this.need(8, 'int64')
    const v = readBigInt64BE(this.buf, this.pos)
    this.pos += 8
    return v
  }

  float64(): number {
    this.need(8, 'float64')
    const v = readDoubleBE(this.buf, this.pos)
    this.pos += 8
    return v
  }

  /** Kafka reads any non-zero byte as true. */
  boolean(): boolean {
    return this.int8() !== 0
  }

  /** An unsigned varint of at most 5 bytes whose value fits in 32 bits. */
  uvarint(): number {
    const start = this.pos
    let value = 0
    for (let i = 0; i < 5; i++) {
      if (this.pos >= this.buf.length) throw new KafkaWireError('truncated varint', start)
      const b = this.buf[this.pos++]!
      if (i === 4 && b > 0x0f) throw new KafkaWireError('varint does not fit in 32 bits', start)
      value += (b & 0x7f) * 2 ** (7 * i)
      if ((b & 0x80) === 0) return value
    }
    throw new KafkaWireError('varint longer than 5 bytes', start)
  }

  /** A zig-zag varint (signed int32). */
  varint(): number {
    const u = this.uvarint()
    return (u >>> 1) ^ -(u & 1)
  }

  /** A zig-zag varlong (signed int64) of at most 10 bytes. */
  varlong(): bigint {
    const start = this.pos
    let value = 0n
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.buf.length) throw new KafkaWireError('truncated varlong', start)
      const b = this.buf[this.pos++]!
      if (i === 9 && b > 0x01) throw new KafkaWireError('varlong does not fit in 64 bits', start)
      value |= BigInt(b & 0x7f) << BigInt(7 * i)
      if ((b & 0x80) === 0) return BigInt.asIntN(64, (value >> 1n) ^ -(value & 1n))
    }
    throw new KafkaWireError('varlong longer than 10 bytes', start)
  }

  /** 16 bytes, as a view. */
  uuid(): Buffer {
    return this.take(16, 'uuid')
  }

  string(): string | null {
    const start = this.pos
    const n = this.int16()
    if (n === -1) return null
    return this.text(this.length(n, start, 'string'))
  }

  compactString(): string | null {
    const start = this.pos
    const n = this.uvarint()
    if (n === 0) return null
    return this.text(this.length(n - 1, start, 'compact string'))
  }

  bytes(): Buffer | null {
    const start = this.pos
    const n = this.int32()
    if (n === -1) return null
    return this.take(this.length(n, start, 'bytes'), 'bytes')
  }

  compactBytes(): Buffer | null {
    const start = this.pos
    const n = this.uvarint()
    if (n === 0) return null
    return this.take(this.length(n - 1, start, 'compact bytes'), 'compact bytes')
  }

  /**
   * A classic array, each item read by `read` at version `v` (a message codec's reader, passed
   * rather than bound in a closure: kafka-writer.ts, array). Each item takes at least one byte in
   * every Kafka schema, so a count above the remaining bytes is rejected before any item is read
   * (no allocation on a hostile count).
   */
  array<T>(read: (r: KafkaReader, v: number) => T, v: number): T[] | null {
    const start = this.pos
    const n = this.int32()
    if (n === -1) return null
    return this.items(this.length(n, start, 'array count'), read, v)
  }

  compactArray<T>(read: (r: KafkaReader, v: number) => T, v: number): T[] | null {
    const start = this.pos
    const n = this.uvarint()
    if (n === 0) return null
    return this.items(this.length(n - 1, start, 'compact array count'), read, v)
  }

  /**
   * A tagged-field section. Unknown fields are skipped; with `keep` they are returned as a map of
   * tag to a view of the value. Tags must increase strictly, as Kafka requires.
   */
  taggedFields(keep: true): ReadonlyMap<number, Buffer>
  taggedFields(keep?: false): undefined
  taggedFields(keep = false): ReadonlyMap<number, Buffer> | undefined {
    const start = this.pos
    const count = this.length(this.uvarint(), start, 'tagged field count')
    // Most sections are empty: those share one empty map instead of allocating their own.
    if (count === 0) return keep ? NO_TAGGED_FIELDS : undefined
    const fields = keep ? new Map<number, Buffer>() : undefined
    let last = -1
    for (let i = 0; i < count; i++) {
      const tagAt = this.pos
      const tag = this.uvarint()
      if (tag <= last) throw new KafkaWireError(`tagged field ${tag} out of order or repeated`, tagAt)
      last = tag
      const sizeAt = this.pos
      const value = this.take(this.length(this.uvarint(), sizeAt, 'tagged field size'), 'tagged field')
      fields?.set(tag, value)
    }
    return fields
  }

  /** The next n bytes as a view (records, raw payloads). */
  raw(n: number): Buffer {
    return this.take(this.length(n, this.pos, 'raw bytes'), 'raw bytes')
  }

  /** A length read at `at`: -1 was handled by the caller, other negatives and overruns are errors. */
  private length(n: number, at: number, what: string): number {
    if (n < 0) throw new KafkaWireError(`negative ${what} length ${n}`, at)
    if (n > this.buf.length - this.pos) {
      throw new KafkaWireError(`${what} length ${n} exceeds the ${this.buf.length - this.pos} bytes left`, at)
    }
    return n
  }

  private take(n: number, what: string): Buffer {
    this.need(n, what)
    const v = subarray(this.buf, this.pos, this.pos + n)
    this.pos += n
    return v
  }

  private text(n: number): string {
    const v = utf8.decode(subarray(this.buf, this.pos, this.pos + n))
    this.pos += n
    return v
  }

  private items<T>(n: number, read: (r: KafkaReader, v: number) => T, v: number): T[] {
    const out = new Array<T>(n)
    for (let i = 0; i < n; i++) out[i] = read(this, v)
    return out
  }
}
