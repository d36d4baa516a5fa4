/**
 * The bytes of window and session store keys: the serialized key followed by big-endian times,
 * so one key's windows sit together in time order (Buffer.compare order of the whole).
 * - window store: key + window start;
 * - session store: key + session end + session start (end first, so findSessions can start its
 *   range at the earliest end it wants).
 * These bytes are also the changelog keys, so restoreBatch rebuilds the store as it was.
 *
 * A time is 8 bytes: the high and low 32-bit halves of the number, the high half offset by 2^31
 * so negative times sort before positive ones (unsigned-byte order equals numeric order for
 * every safe integer).
 */

export const TIME_BYTES = 8
const TWO_32 = 2 ** 32
const TWO_31 = 2 ** 31

export const MIN_TIME = Number.MIN_SAFE_INTEGER
export const MAX_TIME = Number.MAX_SAFE_INTEGER

export function writeTime(target: Buffer, offset: number, ms: number): void {
  const high = Math.floor(ms / TWO_32)
  target.writeUInt32BE(high + TWO_31, offset)
  target.writeUInt32BE(ms - high * TWO_32, offset + 4)
}

export function readTime(source: Buffer, offset: number): number {
  return (source.readUInt32BE(offset) - TWO_31) * TWO_32 + source.readUInt32BE(offset + 4)
}

export function windowKeyBytes(key: Buffer, windowStart: number): Buffer {
  const out = Buffer.allocUnsafe(key.length + TIME_BYTES)
  key.copy(out, 0)
  writeTime(out, key.length, windowStart)
  return out
}

export function sessionKeyBytes(key: Buffer, start: number, end: number): Buffer {
  const out = Buffer.allocUnsafe(key.length + 2 * TIME_BYTES)
  key.copy(out, 0)
  writeTime(out, key.length, end)
  writeTime(out, key.length + TIME_BYTES, start)
  return out
}

/** The key part of a composite key that carries `times` times (1 for windows, 2 for sessions). */
export function keyPart(composite: Buffer, times: number): Buffer {
  return composite.subarray(0, composite.length - times * TIME_BYTES)
}

/**
 * True when `composite` belongs to exactly `key`: a range over one key's bytes may also reach a
 * longer key that starts with them (key 'a' and key 'a\x00...'), which must be skipped.
 */
export function hasKey(composite: Buffer, key: Buffer, times: number): boolean {
  return (
    composite.length === key.length + times * TIME_BYTES && composite.compare(key, 0, key.length, 0, key.length) === 0
  )
}

export function windowStartOf(composite: Buffer): number {
  return readTime(composite, composite.length - TIME_BYTES)
}

export function sessionEndOf(composite: Buffer): number {
  return readTime(composite, composite.length - 2 * TIME_BYTES)
}

export function sessionStartOf(composite: Buffer): number {
  return readTime(composite, composite.length - TIME_BYTES)
}
