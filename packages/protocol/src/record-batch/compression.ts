/**
 * The four codecs of RecordBatch v2, applied to the records section only (the 61-byte header
 * stays uncompressed). Attribute bits 0-2 name the codec: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd.
 * Framings match the Java client so batches pass between Sluice and Kafka unchanged:
 *   gzip   a standard gzip stream (node:zlib)
 *   snappy xerial framing (snappy-xerial.ts)
 *   lz4    the LZ4 *frame* format, magic 04 22 4d 18, independent blocks (lz4-napi's frame API)
 *   zstd   a standard zstd frame (zstd-napi)
 * Native codecs load on first use. Any decompression failure becomes CORRUPT_MESSAGE.
 */
import { createRequire } from 'node:module'
import { gunzipSync, gzipSync } from 'node:zlib'
import type * as Lz4Module from 'lz4-napi'
import type * as ZstdModule from 'zstd-napi'
import { SluiceError } from '../errors.js'
import type { CompressionType } from './record-types.js'
import { snappyDecompress, snappyXerialCompress } from './snappy-xerial.js'

const require = createRequire(import.meta.url)

export const COMPRESSION_IDS: Readonly<Record<CompressionType, number>> = {
  none: 0,
  gzip: 1,
  snappy: 2,
  lz4: 3,
  zstd: 4,
}
export const COMPRESSION_NAMES: readonly CompressionType[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd']

/**
 * zstd's best possible ratio: a 128 KiB RLE block costs a 3-byte header plus 1 byte. A frame that
 * claims more than this is corrupt; checking first stops a forged content size from making us
 * allocate gigabytes.
 */
const ZSTD_MAX_RATIO = 32768

interface ZstdBinding {
  getFrameContentSize: (frame: Uint8Array) => number | null
  findFrameCompressedSize: (frame: Uint8Array) => number
}

let lz4: typeof Lz4Module | undefined
let zstdBinding: ZstdBinding | undefined
let zstdCompressor: ZstdModule.Compressor | undefined
let zstdDecompressor: ZstdModule.Decompressor | undefined

function lz4Lib(): typeof Lz4Module {
  lz4 ??= require('lz4-napi') as typeof Lz4Module
  return lz4
}

function zstdLib(): typeof ZstdModule {
  return require('zstd-napi') as typeof ZstdModule
}

export function compressionId(type: CompressionType): number {
  const id = COMPRESSION_IDS[type]
  if (id === undefined) throw new SluiceError('INVALID_ARGUMENT', `unknown compression type ${String(type)}`)
  return id
}

function checkZstdContentSize(data: Buffer): void {
  zstdBinding ??= require('zstd-napi/binding') as ZstdBinding
  let claimed = 0
  for (let frame = data; frame.length > 0; ) {
    claimed += zstdBinding.getFrameContentSize(frame) ?? 0
    frame = frame.subarray(zstdBinding.findFrameCompressedSize(frame))
  }
  if (claimed > data.length * ZSTD_MAX_RATIO + 131072) {
    throw new SluiceError('CORRUPT_MESSAGE', `zstd frame claims ${claimed} bytes from ${data.length} compressed bytes`)
  }
}

/** Compresses a records section with the codec `type` (not 'none'). */
export function compressRecords(type: CompressionType, records: Buffer): Buffer {
  switch (type) {
    case 'gzip':
      return gzipSync(records)
    case 'snappy':
      return snappyXerialCompress(records)
    case 'lz4':
      return lz4Lib().compressFrameSync(records)
    case 'zstd':
      // Level 3 is zstd's and Kafka's default; one reused context avoids per-batch setup.
      zstdCompressor ??= new (zstdLib().Compressor)()
      return zstdCompressor.compress(records)
    case 'none':
      return records
    default:
      throw new SluiceError('INVALID_ARGUMENT', `unknown compression type ${String(type)}`)
  }
}

/** Decompresses a records section compressed with codec id `id` (1-4). */
export function decompressRecords(id: number, data: Buffer): Buffer {
  const name = COMPRESSION_NAMES[id]
  try {
    switch (id) {
      case 1:
        return gunzipSync(data)
      case 2:
        return snappyDecompress(data)
      case 3:
        return lz4Lib().decompressFrameSync(data)
      case 4:
        checkZstdContentSize(data)
        zstdDecompressor ??= new (zstdLib().Decompressor)()
        return zstdDecompressor.decompress(data)
      default:
        break
    }
  } catch (err) {
    if (err instanceof SluiceError) throw err
    throw new SluiceError(
      'CORRUPT_MESSAGE',
      `cannot decompress ${name ?? 'unknown'} records: ${(err as Error).message}`,
      { compression: name },
      { cause: err },
    )
  }
  throw new SluiceError('CORRUPT_MESSAGE', `unknown compression codec ${id}`)
}
