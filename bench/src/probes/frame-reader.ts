/**
 * Length-prefixed framing for the probes' plain TCP sockets: a 4-byte big-endian body length,
 * then the body, the same shape as Kafka's wire frames, so a probe pays what a framed protocol
 * pays (one length read and one slice per message, a copy only when a frame spans chunks).
 */

export const FRAME_HEADER_BYTES = 4

/** A frame holding a copy of `body`. */
export function frame(body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + body.length)
  out.writeUInt32BE(body.length, 0)
  body.copy(out, FRAME_HEADER_BYTES)
  return out
}

/** Cuts a byte stream into frame bodies; feed it every chunk in order. */
export class FrameReader {
  private buffered: Buffer | undefined

  /** Calls `onBody` for each complete frame in `chunk` (and what earlier chunks left over). */
  push(chunk: Buffer, onBody: (body: Buffer) => void): void {
    let buf = this.buffered === undefined ? chunk : Buffer.concat([this.buffered, chunk])
    this.buffered = undefined
    let at = 0
    while (buf.length - at >= FRAME_HEADER_BYTES) {
      const len = buf.readUInt32BE(at)
      if (buf.length - at - FRAME_HEADER_BYTES < len) break
      onBody(buf.subarray(at + FRAME_HEADER_BYTES, at + FRAME_HEADER_BYTES + len))
      at += FRAME_HEADER_BYTES + len
    }
    if (at < buf.length) {
      // Keep a copy: the caller may reuse its chunk.
      buf = buf.subarray(at)
      this.buffered = Buffer.from(buf)
    }
  }
}
