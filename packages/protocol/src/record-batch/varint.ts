/**
 * Kafka's record-level variable-length integers (ByteUtils.writeVarint / writeVarlong): protobuf
 * base-128, little-endian groups of 7 bits, high bit = "more bytes follow", over a ZIG-ZAG
 * encoded value ((n << 1) ^ (n >> 31), 64-bit for varlong). So 0 → 00, -1 → 01, 1 → 02,
 * 63 → 7e, -64 → 7f, 64 → 80 01, 300 → d8 04. A varint is at most 5 bytes, a varlong 10.
 *
 * Not to be confused with the unsigned varints of Kafka's flexible protocol versions.
 *
 * Hot path: the encoder calls these once per field per record, so they take primitives and a
 * position and return the new position; nothing here allocates. Varlongs use plain numbers while
 * the zig-zag value stays below 2^53 (every realistic timestamp delta) and bigint beyond that.
 */
import { readInt8 } from '../buffer-methods.js'
import { SluiceError } from '../errors.js'

/** Largest magnitude the number path handles exactly: zig-zag(±2^52) < 2^53. */
export const VARLONG_NUMBER_LIMIT = 2 ** 52

/** Zig-zag of an int32, as an unsigned 32-bit number. */
export function zigZag32(n: number): number {
  return ((n << 1) ^ (n >> 31)) >>> 0
}

/** Bytes needed by the zig-zag varint of int32 `n`. */
export function varintSize(n: number): number {
  const v = ((n << 1) ^ (n >> 31)) >>> 0
  if (v < 0x80) return 1
  if (v < 0x4000) return 2
  if (v < 0x200000) return 3
  if (v < 0x10000000) return 4
  return 5
}

/** Writes the zig-zag varint of int32 `n` at `pos`; returns the position after it. */
export function writeVarint(buf: Uint8Array, pos: number, n: number): number {
  let v = ((n << 1) ^ (n >> 31)) >>> 0
  while (v >= 0x80) {
    buf[pos++] = (v & 0x7f) | 0x80
    v >>>= 7
  }
  buf[pos++] = v
  return pos
}

/** Bytes needed by the zig-zag varlong of `n`, where |n| < VARLONG_NUMBER_LIMIT. */
export function varlongSizeNumber(n: number): number {
  if (n >= -0x40000000 && n < 0x40000000) return varintSize(n)
  let v = n >= 0 ? n * 2 : -n * 2 - 1
  let size = 1
  while (v >= 0x80) {
    v = Math.floor(v / 0x80)
    size++
  }
  return size
}

/** Writes the zig-zag varlong of `n` (|n| < VARLONG_NUMBER_LIMIT) at `pos`. */
export function writeVarlongNumber(buf: Uint8Array, pos: number, n: number): number {
  if (n >= -0x40000000 && n < 0x40000000) return writeVarint(buf, pos, n)
  let v = n >= 0 ? n * 2 : -n * 2 - 1
  while (v >= 0x80) {
    buf[pos++] = (v % 0x80) | 0x80
    v = Math.floor(v / 0x80)
  }
  buf[pos++] = v
  return pos
}

function zigZag64(n: bigint): bigint {
  const i = BigInt.asIntN(64, n)
  return BigInt.asUintN(64, (i << 1n) ^ (i >> 63n))
}

/** Bytes needed by the zig-zag varlong of any int64 (wrapped to 64 bits as Java would). */
export function varlongSizeBigInt(n: bigint): number {
  let v = zigZag64(n)
  let size = 1
  while (v >= 0x80n) {
    v >>= 7n
    size++
  }
  return size
}

/** Writes the zig-zag varlong of any int64 (wrapped to 64 bits as Java would). */
export function writeVarlongBigInt(buf: Uint8Array, pos: number, n: bigint): number {
  let v = zigZag64(n)
  while (v >= 0x80n) {
    buf[pos++] = Number(v & 0x7fn) | 0x80
    v >>= 7n
  }
  buf[pos++] = Number(v)
  return pos
}

function corrupt(message: string): SluiceError {
  return new SluiceError('CORRUPT_MESSAGE', message)
}

/**
 * Sequential reader over [pos, end) of a buffer. Every read is bounds-checked and fails with
 * CORRUPT_MESSAGE, so a malformed batch can never surface as a RangeError or read past `end`.
 */
export class VarintReader {
  buf: Buffer
  pos: number
  end: number

  constructor(buf: Buffer, pos: number, end: number) {
    this.buf = buf
    this.pos = pos
    this.end = end
  }

  readInt8(): number {
    if (this.pos >= this.end) throw corrupt('record runs past the end of its batch')
    return readInt8(this.buf, this.pos++)
  }

  /** Kafka's readVarint, including its tolerance of a fifth byte's high bits. */
  readVarint(): number {
    const buf = this.buf
    // Fast path: most record fields (attributes, small deltas, null or short lengths) are 1 byte.
    const first = this.pos < this.end ? buf[this.pos]! : 0x80
    if (first < 0x80) {
      this.pos++
      return (first >>> 1) ^ -(first & 1)
    }
    let value = 0
    let shift = 0
    for (;;) {
      if (this.pos >= this.end) throw corrupt('varint runs past the end of its batch')
      const b = buf[this.pos++]!
      if ((b & 0x80) === 0) {
        value |= b << shift
        return (value >>> 1) ^ -(value & 1)
      }
      value |= (b & 0x7f) << shift
      shift += 7
      if (shift > 28) throw corrupt('varint is longer than 5 bytes')
    }
  }

  /** Kafka's readVarlong; a number when exact (|v| < 2^52), a bigint otherwise. */
  readVarlong(): number | bigint {
    const buf = this.buf
    const start = this.pos
    let value = 0
    let scale = 1
    for (let i = 0; i < 7; i++) {
      if (this.pos >= this.end) throw corrupt('varlong runs past the end of its batch')
      const b = buf[this.pos++]!
      value += (b & 0x7f) * scale
      if ((b & 0x80) === 0) return value % 2 === 0 ? value / 2 : -(value + 1) / 2
      scale *= 0x80
    }
    // Longer than 7 bytes (49 bits): redo it in bigint, as Java's 64-bit arithmetic would.
    this.pos = start
    let big = 0n
    let shift = 0n
    for (;;) {
      if (this.pos >= this.end) throw corrupt('varlong runs past the end of its batch')
      const b = buf[this.pos++]!
      big |= BigInt(b & 0x7f) << shift
      if ((b & 0x80) === 0) break
      shift += 7n
      if (shift > 63n) throw corrupt('varlong is longer than 10 bytes')
    }
    big = BigInt.asUintN(64, big)
    return BigInt.asIntN(64, (big >> 1n) ^ -(big & 1n))
  }

  /** A length-prefixed byte string as a view into the buffer; -1 = null. */
  readBytes(what: string): Buffer | null {
    const length = this.readVarint()
    if (length === -1) return null
    if (length < 0) throw corrupt(`${what} length ${length} is negative`)
    const start = this.pos
    if (length > this.end - start) throw corrupt(`${what} of ${length} bytes runs past the end of its batch`)
    this.pos = start + length
    return this.buf.subarray(start, this.pos)
  }

  /** readBytes' checks without the view (nullable: whether -1 is allowed, as for keys and values). */
  skipBytes(what: string, nullable: boolean): void {
    const length = this.readVarint()
    if (length === -1 && nullable) return
    if (length < 0) throw corrupt(`${what} length ${length} is negative`)
    if (length > this.end - this.pos) throw corrupt(`${what} of ${length} bytes runs past the end of its batch`)
    this.pos += length
  }

  readString(what: string): string {
    const length = this.readVarint()
    if (length < 0) throw corrupt(`${what} length ${length} is negative`)
    const start = this.pos
    if (length > this.end - start) throw corrupt(`${what} of ${length} bytes runs past the end of its batch`)
    this.pos = start + length
    return this.buf.toString('utf8', start, this.pos)
  }
}
