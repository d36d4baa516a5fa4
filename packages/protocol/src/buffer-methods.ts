/**
 * Buffer's fixed-width read and write methods (and its view, copy and text write) as functions
 * of the buffer.
 *
 * Why not `buf.readInt32BE(at)`: in optimised code, Node 20's V8 does not inline the load of a
 * method from a typed array's prototype chain (a Buffer is a Uint8Array), so every such call
 * first runs the generic LoadIC builtin to find the method: a loop of `buf.readUInt8(0)` spent
 * 64 % of its time there. A method read once here and called with `.call` is a constant the
 * compiler inlines. On a broker at 200 records/s the generic LoadIC fell from 4.8 to 3.8 % of
 * the samples with the Kafka codecs and batch headers on these (BENCHMARKS.md, issue 16).
 * These are Buffer's own methods: the same range checks, the same errors.
 */
const P = Buffer.prototype
const readInt8Method = P.readInt8
const readInt16BEMethod = P.readInt16BE
const readInt32BEMethod = P.readInt32BE
const readUInt32BEMethod = P.readUInt32BE
const readBigInt64BEMethod = P.readBigInt64BE
const readDoubleBEMethod = P.readDoubleBE
const writeInt8Method = P.writeInt8
const writeInt16BEMethod = P.writeInt16BE
const writeInt32BEMethod = P.writeInt32BE
const writeUInt32BEMethod = P.writeUInt32BE
const writeBigInt64BEMethod = P.writeBigInt64BE
const writeDoubleBEMethod = P.writeDoubleBE
const subarrayMethod = P.subarray
const setMethod = P.set
const writeMethod = P.write

export function readInt8(buf: Buffer, at: number): number {
  return readInt8Method.call(buf, at)
}

export function readInt16BE(buf: Buffer, at: number): number {
  return readInt16BEMethod.call(buf, at)
}

export function readInt32BE(buf: Buffer, at: number): number {
  return readInt32BEMethod.call(buf, at)
}

export function readUInt32BE(buf: Buffer, at: number): number {
  return readUInt32BEMethod.call(buf, at)
}

export function readBigInt64BE(buf: Buffer, at: number): bigint {
  return readBigInt64BEMethod.call(buf, at)
}

export function readDoubleBE(buf: Buffer, at: number): number {
  return readDoubleBEMethod.call(buf, at)
}

/** Each write answers the position after the bytes written, as Buffer's do. */
export function writeInt8(buf: Buffer, v: number, at: number): number {
  return writeInt8Method.call(buf, v, at)
}

export function writeInt16BE(buf: Buffer, v: number, at: number): number {
  return writeInt16BEMethod.call(buf, v, at)
}

export function writeInt32BE(buf: Buffer, v: number, at: number): number {
  return writeInt32BEMethod.call(buf, v, at)
}

export function writeUInt32BE(buf: Buffer, v: number, at: number): number {
  return writeUInt32BEMethod.call(buf, v, at)
}

export function writeBigInt64BE(buf: Buffer, v: bigint, at: number): number {
  return writeBigInt64BEMethod.call(buf, v, at)
}

export function writeDoubleBE(buf: Buffer, v: number, at: number): number {
  return writeDoubleBEMethod.call(buf, v, at)
}

/** A view of buf[start, end) (Buffer's subarray: no copy). */
export function subarray(buf: Buffer, start: number, end: number): Buffer {
  return subarrayMethod.call(buf, start, end)
}

/** Copies `source` into `target` at `at` (Uint8Array's set). */
export function copyInto(target: Buffer, source: Uint8Array, at: number): void {
  setMethod.call(target, source, at)
}

/** Encodes `text` as UTF-8 into buf at `at`, at most `length` bytes; answers the bytes written. */
export function writeUtf8(buf: Buffer, text: string, at: number, length: number): number {
  return writeMethod.call(buf, text, at, length, 'utf8')
}
