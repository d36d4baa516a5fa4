/**
 * Slow, obviously-correct bitwise CRCs for tests, independent of the native @node-rs/crc32 and of
 * zlib: CRC-32C (Castagnoli, reflected polynomial 0x82F63B78, RecordBatch v2's checksum) and
 * CRC-32 (IEEE, 0xEDB88320, the gzip trailer's checksum).
 */
function crcBitwise(data: Uint8Array, poly: number): number {
  let crc = 0xffffffff
  for (const byte of data) {
    crc ^= byte
    for (let bit = 0; bit < 8; bit++) crc = (crc & 1) !== 0 ? (crc >>> 1) ^ poly : crc >>> 1
  }
  return (crc ^ 0xffffffff) >>> 0
}

export function referenceCrc32c(data: Uint8Array): number {
  return crcBitwise(data, 0x82f63b78)
}

export function referenceCrc32(data: Uint8Array): number {
  return crcBitwise(data, 0xedb88320)
}

/** Concatenates hex fragments (spaces and newlines allowed) into a Buffer. */
export function hex(...parts: string[]): Buffer {
  return Buffer.from(parts.join('').replace(/\s+/g, ''), 'hex')
}
