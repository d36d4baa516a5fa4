/**
 * The round skeleton's messages (round-probe.ts): scenario 6's four message kinds with nothing
 * but what the round needs to move, each one length-prefixed frame (frame-reader.ts) with a
 * binary body. Records are opaque fixed-size values (the bench's 100-byte values, intended send
 * time at byte 0), kept as the bytes they arrived in, so a fetch answer is a copy of stored
 * chunks and nothing is parsed per record on a broker. Offsets are numbers (< 2^53).
 *
 *   produce         1 corr:u32 n:u16 { partition:u16 count:u32 bytes:u32 <bytes> }*
 *   produce-answer  2 corr:u32 n:u16 { partition:u16 base:f64 }*
 *   fetch           3 replica:i16 (-1 = consumer) n:u16 { partition:u16 offset:f64 }*
 *   fetch-answer    4 n:u16 { partition:u16 hw:f64 from:f64 count:u32 bytes:u32 <bytes> }*
 */
import { FRAME_HEADER_BYTES } from '../frame-reader.js'

export const PRODUCE = 1
export const PRODUCE_ANSWER = 2
export const FETCH = 3
export const FETCH_ANSWER = 4

export interface DataPart {
  readonly partition: number
  readonly count: number
  /** The records, `count` values back to back. */
  readonly data: Buffer
}

export interface AnswerPart extends DataPart {
  readonly hw: number
  /** Offset of the first record in `data`. */
  readonly from: number
}

export interface OffsetPart {
  readonly partition: number
  readonly offset: number
}

/** A frame (size prefix included) with room for `bodyBytes`. */
function frameOf(bodyBytes: number): Buffer {
  const b = Buffer.allocUnsafe(FRAME_HEADER_BYTES + bodyBytes)
  b.writeUInt32BE(bodyBytes, 0)
  return b
}

export function encodeProduce(corr: number, parts: readonly DataPart[]): Buffer {
  let size = 7
  for (const p of parts) size += 10 + p.data.length
  const b = frameOf(size)
  let at = FRAME_HEADER_BYTES
  at = b.writeUInt8(PRODUCE, at)
  at = b.writeUInt32BE(corr, at)
  at = b.writeUInt16BE(parts.length, at)
  for (const p of parts) {
    at = b.writeUInt16BE(p.partition, at)
    at = b.writeUInt32BE(p.count, at)
    at = b.writeUInt32BE(p.data.length, at)
    at += p.data.copy(b, at)
  }
  return b
}

export function encodeProduceAnswer(corr: number, parts: readonly OffsetPart[]): Buffer {
  const b = frameOf(7 + parts.length * 10)
  let at = FRAME_HEADER_BYTES
  at = b.writeUInt8(PRODUCE_ANSWER, at)
  at = b.writeUInt32BE(corr, at)
  at = b.writeUInt16BE(parts.length, at)
  for (const p of parts) {
    at = b.writeUInt16BE(p.partition, at)
    at = b.writeDoubleBE(p.offset, at)
  }
  return b
}

export function encodeFetch(replica: number, parts: readonly OffsetPart[]): Buffer {
  const b = frameOf(5 + parts.length * 10)
  let at = FRAME_HEADER_BYTES
  at = b.writeUInt8(FETCH, at)
  at = b.writeInt16BE(replica, at)
  at = b.writeUInt16BE(parts.length, at)
  for (const p of parts) {
    at = b.writeUInt16BE(p.partition, at)
    at = b.writeDoubleBE(p.offset, at)
  }
  return b
}

/** Each part's data is a list of stored chunks, copied into the frame once. */
export function encodeFetchAnswer(
  parts: ReadonlyArray<{ partition: number; hw: number; from: number; count: number; chunks: readonly Buffer[] }>,
): Buffer {
  let size = 3
  for (const p of parts) {
    size += 26
    for (const c of p.chunks) size += c.length
  }
  const b = frameOf(size)
  let at = FRAME_HEADER_BYTES
  at = b.writeUInt8(FETCH_ANSWER, at)
  at = b.writeUInt16BE(parts.length, at)
  for (const p of parts) {
    at = b.writeUInt16BE(p.partition, at)
    at = b.writeDoubleBE(p.hw, at)
    at = b.writeDoubleBE(p.from, at)
    at = b.writeUInt32BE(p.count, at)
    let bytes = 0
    for (const c of p.chunks) bytes += c.length
    at = b.writeUInt32BE(bytes, at)
    for (const c of p.chunks) at += c.copy(b, at)
  }
  return b
}

export function decodeProduce(body: Buffer): { corr: number; parts: DataPart[] } {
  const corr = body.readUInt32BE(1)
  const n = body.readUInt16BE(5)
  let at = 7
  const parts: DataPart[] = []
  for (let i = 0; i < n; i++) {
    const partition = body.readUInt16BE(at)
    const count = body.readUInt32BE(at + 2)
    const bytes = body.readUInt32BE(at + 6)
    at += 10
    parts.push({ partition, count, data: body.subarray(at, at + bytes) })
    at += bytes
  }
  return { corr, parts }
}

export function decodeProduceAnswer(body: Buffer): { corr: number; parts: OffsetPart[] } {
  const corr = body.readUInt32BE(1)
  const n = body.readUInt16BE(5)
  const parts: OffsetPart[] = []
  for (let i = 0, at = 7; i < n; i++, at += 10)
    parts.push({ partition: body.readUInt16BE(at), offset: body.readDoubleBE(at + 2) })
  return { corr, parts }
}

export function decodeFetch(body: Buffer): { replica: number; parts: OffsetPart[] } {
  const replica = body.readInt16BE(1)
  const n = body.readUInt16BE(3)
  const parts: OffsetPart[] = []
  for (let i = 0, at = 5; i < n; i++, at += 10)
    parts.push({ partition: body.readUInt16BE(at), offset: body.readDoubleBE(at + 2) })
  return { replica, parts }
}

export function decodeFetchAnswer(body: Buffer): AnswerPart[] {
  const n = body.readUInt16BE(1)
  let at = 3
  const parts: AnswerPart[] = []
  for (let i = 0; i < n; i++) {
    const partition = body.readUInt16BE(at)
    const hw = body.readDoubleBE(at + 2)
    const from = body.readDoubleBE(at + 10)
    const count = body.readUInt32BE(at + 18)
    const bytes = body.readUInt32BE(at + 22)
    at += 26
    parts.push({ partition, hw, from, count, data: body.subarray(at, at + bytes) })
    at += bytes
  }
  return parts
}
