import { SluiceError } from '../errors.js'
import {
  copyInto,
  subarray,
  writeBigInt64BE,
  writeDoubleBE,
  writeInt16BE,
  writeInt32BE,
  writeInt8,
  writeUInt32BE,
  writeUtf8,
} from '../buffer-methods.js'

/** Raw byte runs at least this long are kept as their own chunk instead of being copied in. */
const PASS_THROUGH_BYTES = 1024

/**
 * Builds one Kafka message body. Small fields go into a growable buffer; large raw byte runs
 * (record batches) are appended as separate chunks so they are never copied. `toChunks()` hands
 * the pieces to a socket's writev; `toFrame()` puts the int32 size prefix in front.
 *
 * A writer made by `forFrame()` keeps the first four bytes of its buffer for that prefix, so a
 * message without pass-through chunks leaves as one buffer: one plain socket write instead of a
 * corked writev of a separate 4-byte prefix and the body (most requests and answers are small).
 */
export class KafkaWriter {
  private readonly chunks: Buffer[] = []
  private chunkBytes = 0
  private buf: Buffer
  private pos: number

  constructor(
    initialSize = 256,
    /** Bytes kept free at the start for the size prefix (forFrame). */
    private readonly reserved: 0 | 4 = 0,
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(16, initialSize))
    this.pos = reserved
  }

  /** A writer whose toFrame() writes the size prefix in place (use toFrame, not toChunks). */
  static forFrame(initialSize = 256): KafkaWriter {
    return new KafkaWriter(initialSize, 4)
  }

  /** The number of body bytes written so far. */
  get length(): number {
    return this.chunkBytes + this.pos - this.reserved
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n))
    this.buf.copy(next, 0, 0, this.pos)
    this.buf = next
  }

  int8(v: number): this {
    this.ensure(1)
    this.pos = writeInt8(this.buf, v, this.pos)
    return this
  }

  int16(v: number): this {
    this.ensure(2)
    this.pos = writeInt16BE(this.buf, v, this.pos)
    return this
  }

  int32(v: number): this {
    this.ensure(4)
    this.pos = writeInt32BE(this.buf, v, this.pos)
    return this
  }

  uint32(v: number): this {
    this.ensure(4)
    this.pos = writeUInt32BE(this.buf, v, this.pos)
    return this
  }

  int64(v: bigint): this {
    this.ensure(8)
    this.pos = writeBigInt64BE(this.buf, v, this.pos)
    return this
  }

  float64(v: number): this {
    this.ensure(8)
    this.pos = writeDoubleBE(this.buf, v, this.pos)
    return this
  }

  boolean(v: boolean): this {
    return this.int8(v ? 1 : 0)
  }

  /** An unsigned varint (KIP-482 compact lengths and tags): 0 .. 2^32-1. */
  uvarint(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) {
      throw new SluiceError('INVALID_ARGUMENT', `unsigned varint out of range: ${v}`)
    }
    this.ensure(5)
    while (v > 0x7f) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80
      v = Math.floor(v / 128)
    }
    this.buf[this.pos++] = v
    return this
  }

  /** A zig-zag varint (the signed int32 varints inside records). */
  varint(v: number): this {
    if (!Number.isInteger(v) || v < -0x80000000 || v > 0x7fffffff) {
      throw new SluiceError('INVALID_ARGUMENT', `varint out of int32 range: ${v}`)
    }
    return this.uvarint(((v << 1) ^ (v >> 31)) >>> 0)
  }

  /** A zig-zag varlong (signed int64). */
  varlong(v: bigint): this {
    let u = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n))
    this.ensure(10)
    while (u > 0x7fn) {
      this.buf[this.pos++] = Number(u & 0x7fn) | 0x80
      u >>= 7n
    }
    this.buf[this.pos++] = Number(u)
    return this
  }

  uuid(v: Uint8Array): this {
    if (v.length !== 16) throw new SluiceError('INVALID_ARGUMENT', `a UUID has 16 bytes, not ${v.length}`)
    return this.copyIn(v)
  }

  /** A classic string: int16 byte length (-1 for null), then UTF-8. */
  string(v: string | null): this {
    if (v === null) return this.int16(-1)
    const n = Buffer.byteLength(v, 'utf8')
    if (n > 0x7fff) throw new SluiceError('INVALID_ARGUMENT', `string too long: ${n} bytes`)
    return this.int16(n).utf8(v, n)
  }

  /** A compact string: unsigned varint of length + 1 (0 for null), then UTF-8. */
  compactString(v: string | null): this {
    if (v === null) return this.uvarint(0)
    const n = Buffer.byteLength(v, 'utf8')
    return this.uvarint(n + 1).utf8(v, n)
  }

  /** Classic bytes: int32 length (-1 for null), then the bytes. */
  bytes(v: Uint8Array | null): this {
    if (v === null) return this.int32(-1)
    return this.int32(v.length).raw(v)
  }

  compactBytes(v: Uint8Array | null): this {
    if (v === null) return this.uvarint(0)
    return this.uvarint(v.length + 1).raw(v)
  }

  /**
   * A classic array: int32 count (-1 for null), then each item written by `write` at version
   * `v`, a message codec's writer. The writer and the version are passed, not bound in a closure:
   * a closure per call would be an allocation, and V8 sets up every new one on its first call.
   */
  array<T>(items: readonly T[] | null, write: (w: KafkaWriter, v: number, item: T) => void, v: number): this {
    if (items === null) return this.int32(-1)
    this.int32(items.length)
    for (let i = 0; i < items.length; i++) write(this, v, items[i]!)
    return this
  }

  /** A compact array: unsigned varint of count + 1 (0 for null), then each item, as array(). */
  compactArray<T>(items: readonly T[] | null, write: (w: KafkaWriter, v: number, item: T) => void, v: number): this {
    if (items === null) return this.uvarint(0)
    this.uvarint(items.length + 1)
    for (let i = 0; i < items.length; i++) write(this, v, items[i]!)
    return this
  }

  /**
   * A tagged-field section: count, then per field tag, size and bytes, tags in increasing order
   * (Kafka rejects a section whose tags are out of order or repeated).
   */
  taggedFields(fields?: ReadonlyMap<number, Uint8Array>): this {
    if (fields === undefined || fields.size === 0) return this.uvarint(0)
    const tags = [...fields.keys()].sort((a, b) => a - b)
    this.uvarint(tags.length)
    for (const tag of tags) {
      const value = fields.get(tag)!
      this.uvarint(tag).uvarint(value.length).raw(value)
    }
    return this
  }

  /** Bytes passed through as they are; long runs (record batches) become their own chunk, uncopied. */
  raw(v: Uint8Array): this {
    if (v.length < PASS_THROUGH_BYTES) return this.copyIn(v)
    if (this.pos > 0) {
      this.chunks.push(subarray(this.buf, 0, this.pos))
      this.chunkBytes += this.pos
      // The pushed chunk keeps the old buffer; later fields go into a fresh one.
      this.buf = Buffer.allocUnsafe(this.buf.length)
      this.pos = 0
    }
    this.chunks.push(Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.length))
    this.chunkBytes += v.length
    return this
  }

  /** Encodes straight into the buffer: no intermediate array per string. */
  private utf8(v: string, n: number): this {
    this.ensure(n)
    this.pos += writeUtf8(this.buf, v, this.pos, n)
    return this
  }

  private copyIn(v: Uint8Array): this {
    this.ensure(v.length)
    copyInto(this.buf, v, this.pos)
    this.pos += v.length
    return this
  }

  /** The body as chunks, in order, for writev; nothing is copied (a forFrame writer's lead with the prefix). */
  toChunks(): Buffer[] {
    return this.pos > 0 ? [...this.chunks, subarray(this.buf, 0, this.pos)] : [...this.chunks]
  }

  /** The body as one buffer (copies only when there is more than one chunk). */
  toBuffer(): Buffer {
    const chunks = this.toChunks()
    if (chunks.length === 1) return chunks[0]!
    return Buffer.concat(chunks, this.length)
  }

  /** The body behind its int32 size prefix, as chunks for writev (one buffer when it can be). */
  toFrame(): Buffer[] {
    if (this.reserved === 0) {
      const size = Buffer.allocUnsafe(4)
      writeInt32BE(size, this.length, 0)
      return [size, ...this.toChunks()]
    }
    // The reserved bytes lead the first chunk, or the buffer when no chunk was pushed yet.
    writeInt32BE(this.chunks[0] ?? this.buf, this.length, 0)
    return this.toChunks()
  }
}
