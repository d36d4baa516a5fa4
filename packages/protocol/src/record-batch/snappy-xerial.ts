/**
 * Snappy as Kafka's Java client writes it: snappy-java's SnappyOutputStream ("xerial") framing,
 * not raw snappy and not the official snappy frame format:
 *
 *   header  82 53 4e 41 50 50 59 00 ("\x82SNAPPY\0") | int32 BE version = 1 | int32 BE compat = 1
 *   blocks  int32 BE compressedLength | raw snappy block (of at most 32 KiB of input)
 *
 * Reading accepts what SnappyInputStream accepts: xerial streams (including several concatenated,
 * each starting with its own header) and, when the magic is absent, one raw snappy block, which
 * some non-Java clients produce.
 */
import { createRequire } from 'node:module'
import type * as SnappyModule from 'snappy'
import { SluiceError } from '../errors.js'

const require = createRequire(import.meta.url)
let snappy: typeof SnappyModule | undefined
function lib(): typeof SnappyModule {
  // Loaded on first use so that a platform without the native binding can still use other codecs.
  snappy ??= require('snappy') as typeof SnappyModule
  return snappy
}

export const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00])
export const XERIAL_HEADER_BYTES = 16
/** snappy-java's default block size, which Kafka uses. */
export const XERIAL_BLOCK_BYTES = 32 * 1024

function isXerialHeaderAt(buf: Buffer, pos: number): boolean {
  return buf.length - pos >= XERIAL_HEADER_BYTES && XERIAL_MAGIC.equals(buf.subarray(pos, pos + 8))
}

export function snappyXerialCompress(input: Buffer): Buffer {
  const s = lib()
  const blocks: Buffer[] = []
  let total = XERIAL_HEADER_BYTES
  for (let pos = 0; pos < input.length; pos += XERIAL_BLOCK_BYTES) {
    const block = s.compressSync(input.subarray(pos, Math.min(input.length, pos + XERIAL_BLOCK_BYTES)))
    blocks.push(block)
    total += 4 + block.length
  }
  const out = Buffer.allocUnsafe(total)
  XERIAL_MAGIC.copy(out, 0)
  out.writeInt32BE(1, 8)
  out.writeInt32BE(1, 12)
  let pos = XERIAL_HEADER_BYTES
  for (const block of blocks) {
    out.writeInt32BE(block.length, pos)
    block.copy(out, pos + 4)
    pos += 4 + block.length
  }
  return out
}

/**
 * Snappy's densest element is a 3-byte copy of 64 bytes, so a block can expand at most ~22x. A
 * block whose length preamble claims more is corrupt; rejecting it up front stops a forged
 * preamble from reserving gigabytes.
 */
const SNAPPY_MAX_RATIO = 22

function rawUncompress(block: Buffer): Buffer {
  let claimed = 0
  for (let i = 0, scale = 1; i < 5 && i < block.length; i++, scale *= 0x80) {
    claimed += (block[i]! & 0x7f) * scale
    if ((block[i]! & 0x80) === 0) break
  }
  if (claimed > block.length * SNAPPY_MAX_RATIO + 64) {
    throw new SluiceError(
      'CORRUPT_MESSAGE',
      `snappy block claims ${claimed} bytes from ${block.length} compressed bytes`,
    )
  }
  return lib().uncompressSync(block, { asBuffer: true }) as Buffer
}

export function snappyDecompress(input: Buffer): Buffer {
  if (!isXerialHeaderAt(input, 0)) return rawUncompress(input)
  const parts: Buffer[] = []
  let pos = 0
  while (pos < input.length) {
    if (isXerialHeaderAt(input, pos)) {
      pos += XERIAL_HEADER_BYTES
      continue
    }
    if (input.length - pos < 4) throw new SluiceError('CORRUPT_MESSAGE', 'truncated xerial snappy block length')
    const length = input.readInt32BE(pos)
    pos += 4
    if (length < 0 || length > input.length - pos) {
      throw new SluiceError('CORRUPT_MESSAGE', `xerial snappy block of ${length} bytes runs past the end`)
    }
    parts.push(rawUncompress(input.subarray(pos, pos + length)))
    pos += length
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
}
