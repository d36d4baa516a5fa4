/**
 * Conversions between the gRPC wire shapes the broker operations take and answer (int64 as
 * decimal strings, '' for an absent string, Uint8Array for bytes) and the Kafka codecs' shapes
 * (bigint, null, Buffer).
 */
import { toInt64String } from '@sluice/protocol'

export { int64FromWire } from '@sluice/protocol'

export function int64ToWire(v: bigint): string {
  return toInt64String(v)
}

/** An error message for Kafka: null when there is none. */
export function messageOrNull(message: string | undefined): string | null {
  return message === undefined || message === '' ? null : message
}

const NO_BYTES = Buffer.alloc(0)

export function bufferFromWire(v: Uint8Array | string | undefined): Buffer {
  if (v === undefined) return NO_BYTES
  if (Buffer.isBuffer(v)) return v
  return typeof v === 'string' ? Buffer.from(v, 'base64') : Buffer.from(v.buffer, v.byteOffset, v.byteLength)
}
