import { readInt32BE, subarray } from '../buffer-methods.js'
import { type KafkaReader, NO_TAGGED_FIELDS } from './kafka-reader.js'
import { KafkaWireError } from './kafka-wire-error.js'
import type { KafkaWriter } from './kafka-writer.js'

/** Kafka's socket.request.max.bytes default: the largest request a broker accepts. */
export const DEFAULT_MAX_FRAME_BYTES = 104857600

/**
 * Splits a byte stream into int32-size-prefixed frames. The size is checked as soon as its four
 * bytes arrive, before any of the body is buffered, so a hostile size cannot make the broker hold
 * 2 GiB. Chunks are kept as a list and joined once per frame; a frame that lies inside one chunk
 * is a view of it. After an error the stream is out of step: the caller closes the connection.
 */
export class KafkaFrameSplitter {
  private pending: Buffer[] = []
  private pendingBytes = 0
  private bodySize = -1
  /** Bytes of the stream consumed before the pending ones, for error positions. */
  private streamOffset = 0

  constructor(readonly maxFrameBytes = DEFAULT_MAX_FRAME_BYTES) {}

  /** Bytes received but not yet part of a complete frame (the partial tail). */
  get buffered(): number {
    return this.pendingBytes
  }

  /** Adds received bytes; returns every frame body they complete, in order. */
  push(chunk: Buffer): Buffer[] {
    const frames: Buffer[] = []
    this.pushEach(chunk, (f) => frames.push(f))
    return frames
  }

  /**
   * Adds received bytes and hands each frame body they complete to `onFrame`, in order. A bad
   * size throws only after the frames before it were handed over, so a server can still answer
   * the requests a client sent ahead of the bad one.
   */
  pushEach(chunk: Buffer, onFrame: (frame: Buffer) => void): void {
    if (chunk.length > 0) {
      this.pending.push(chunk)
      this.pendingBytes += chunk.length
    }
    for (;;) {
      if (this.bodySize < 0) {
        if (this.pendingBytes < 4) break
        const size = readInt32BE(this.take(4), 0)
        if (size < 0 || size > this.maxFrameBytes) {
          throw new KafkaWireError(`frame size ${size} outside 0..${this.maxFrameBytes}`, this.streamOffset - 4)
        }
        this.bodySize = size
      }
      if (this.pendingBytes < this.bodySize) break
      const frame = this.take(this.bodySize)
      this.bodySize = -1
      onFrame(frame)
    }
  }

  /** The remaining partial bytes (size prefix included if its body is incomplete), joined. */
  rest(): Buffer {
    const tail = Buffer.concat(this.pending, this.pendingBytes)
    if (this.bodySize < 0) return tail
    const prefix = Buffer.allocUnsafe(4)
    prefix.writeInt32BE(this.bodySize, 0)
    return Buffer.concat([prefix, tail])
  }

  private take(n: number): Buffer {
    this.pendingBytes -= n
    this.streamOffset += n
    const first = this.pending[0]
    if (first !== undefined && first.length >= n) {
      if (first.length === n) this.pending.shift()
      else this.pending[0] = subarray(first, n, first.length)
      return subarray(first, 0, n)
    }
    // One buffer per frame: views into a shared slab made the log's writes of these records
    // cost more per MB (BENCHMARKS.md, issue 15), so every frame that spans chunks is its own.
    const out = Buffer.allocUnsafeSlow(n)
    let filled = 0
    while (filled < n) {
      const c = this.pending[0]!
      const used = Math.min(c.length, n - filled)
      c.copy(out, filled, 0, used)
      filled += used
      if (used === c.length) this.pending.shift()
      else this.pending[0] = subarray(c, used, c.length)
    }
    return out
  }
}

/** Splits a buffer holding zero or more whole frames and maybe a partial tail. */
export function splitKafkaFrames(
  data: Buffer,
  maxFrameBytes = DEFAULT_MAX_FRAME_BYTES,
): { frames: Buffer[]; rest: Buffer } {
  const splitter = new KafkaFrameSplitter(maxFrameBytes)
  const frames = splitter.push(data)
  return { frames, rest: splitter.rest() }
}

export type RequestHeaderVersion = 0 | 1 | 2
export type ResponseHeaderVersion = 0 | 1

export interface KafkaRequestHeader {
  apiKey: number
  apiVersion: number
  correlationId: number
  /** Null in header v0 (which has no client id) and when the client sent -1. */
  clientId: string | null
  /** Header v2's tagged fields, by tag (empty for v0 and v1). */
  taggedFields: ReadonlyMap<number, Buffer>
}

/**
 * Reads a request header. The header version depends on the API and its version (v2 for
 * flexible versions), so it may be given as a function of the two, called once they are read.
 * In v2 the client id stays a classic string (KIP-482 kept it readable by every broker).
 */
export function readRequestHeader(
  r: KafkaReader,
  version: RequestHeaderVersion | ((apiKey: number, apiVersion: number) => RequestHeaderVersion),
): KafkaRequestHeader {
  const apiKey = r.int16()
  const apiVersion = r.int16()
  const correlationId = r.int32()
  const v = typeof version === 'function' ? version(apiKey, apiVersion) : version
  const clientId = v >= 1 ? r.string() : null
  const taggedFields = v >= 2 ? r.taggedFields(true) : NO_TAGGED_FIELDS
  return { apiKey, apiVersion, correlationId, clientId, taggedFields }
}

/** Writes a request header (clients and tests). */
export function writeRequestHeader(
  w: KafkaWriter,
  version: RequestHeaderVersion,
  h: Omit<KafkaRequestHeader, 'taggedFields'> & { taggedFields?: ReadonlyMap<number, Uint8Array> },
): KafkaWriter {
  w.int16(h.apiKey).int16(h.apiVersion).int32(h.correlationId)
  if (version >= 1) w.string(h.clientId)
  if (version >= 2) w.taggedFields(h.taggedFields)
  return w
}

/**
 * Writes a response header: v0 is the correlation id alone, v1 adds a tagged-field section.
 * ApiVersions answers always use v0, even at flexible versions.
 */
export function writeResponseHeader(
  w: KafkaWriter,
  version: ResponseHeaderVersion,
  correlationId: number,
  taggedFields?: ReadonlyMap<number, Uint8Array>,
): KafkaWriter {
  w.int32(correlationId)
  if (version >= 1) w.taggedFields(taggedFields)
  return w
}

/** Reads a response header (clients and tests). */
export function readResponseHeader(
  r: KafkaReader,
  version: ResponseHeaderVersion,
): { correlationId: number; taggedFields: ReadonlyMap<number, Buffer> } {
  const correlationId = r.int32()
  const taggedFields = version >= 1 ? r.taggedFields(true) : NO_TAGGED_FIELDS
  return { correlationId, taggedFields }
}
