/**
 * The bytes every probe message carries, whatever the transport (a TCP frame's body, a gRPC
 * message's `records`): a sequence number, whether the message is in the measured window (the
 * rest warm both ends), and three process.hrtime.bigint() stamps: when the first process wrote
 * it, when a peer's first JS line saw it, and when the peer wrote its answer. The rest is
 * padding to the message size. Stamps from different processes compare because the clock is
 * the machine's CLOCK_MONOTONIC (clock-check.ts).
 */

export const BODY_SEQ = 0
export const BODY_FLAGS = 4
export const BODY_ORIGIN_NS = 8
export const BODY_PEER_RECEIVED_NS = 16
export const BODY_PEER_SENT_NS = 24
export const BODY_MIN_BYTES = 32

const MEASURED = 1

/** A body of `bytes` (at least BODY_MIN_BYTES), stamps zero, padding zero. */
export function newBody(bytes: number, seq: number, measured: boolean): Buffer {
  const body = Buffer.alloc(Math.max(BODY_MIN_BYTES, bytes))
  body.writeUInt32BE(seq, BODY_SEQ)
  body.writeUInt8(measured ? MEASURED : 0, BODY_FLAGS)
  return body
}

export const bodySeq = (body: Buffer): number => body.readUInt32BE(BODY_SEQ)
export const bodyMeasured = (body: Buffer): boolean => (body.readUInt8(BODY_FLAGS) & MEASURED) !== 0
export const readStamp = (body: Buffer, at: number): bigint => body.readBigUInt64BE(at)
export const writeStamp = (body: Buffer, at: number, ns: bigint): void => {
  body.writeBigUInt64BE(ns, at)
}
