/**
 * One golden batch per codec, stored in src/__fixtures__/ and rebuilt here by hand. Real
 * compressor output depends on library versions, so the fixtures use each format's "stored"
 * encodings instead (a deflate stored block, a snappy literal, an uncompressed LZ4 block, a raw
 * zstd block): valid streams any conforming decoder must accept, fully determined by the spec.
 * Our encoder's own compressed output is checked by framing and round-trip, not by bytes.
 * Regenerate the .bin files with SLUICE_WRITE_FIXTURES=1 after a deliberate format change.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { hex, referenceCrc32, referenceCrc32c } from '../__fixtures__/reference-checksums.js'
import { readBatchHeader, validateBatches } from './batch-header.js'
import type { CompressionType, RecordInput } from './record-types.js'
import { decodeRecordBatches } from './record-decoder.js'
import { encodeRecordBatch } from './record-encoder.js'
import { XERIAL_BLOCK_BYTES } from './snappy-xerial.js'

const T0 = 1700000000000n

/** The records section of the two-record golden batch (see record-golden.test.ts): 21 bytes. */
const RECORDS = hex('1a 00 00 00 026b 047631 02 0268 0278', '0c 00 0a 02 01 01 00')

const EXPECTED_RECORDS = [
  {
    offset: 0n,
    timestamp: T0,
    key: Buffer.from('k'),
    value: Buffer.from('v1'),
    headers: [{ key: 'h', value: Buffer.from('x') }],
  },
  { offset: 1n, timestamp: T0 + 5n, key: null, value: null, headers: [] },
]

function le32(n: number): string {
  const b = Buffer.alloc(4)
  b.writeUInt32LE(n >>> 0)
  return b.toString('hex')
}

/** The golden batch header with `attributes`, around `section`; length and CRC filled in. */
function batchAround(attributes: number, section: Buffer): Buffer {
  const batch = Buffer.concat([
    hex(
      '0000000000000000',
      '00000000',
      'ffffffff',
      '02',
      '00000000', // offset, length/CRC below, epoch, magic
      attributes.toString(16).padStart(4, '0'),
      '00000001',
      '0000018bcfe56800',
      '0000018bcfe56805', // lastOffsetDelta 1, base/max timestamp
      'ffffffffffffffff',
      'ffff',
      'ffffffff',
      '00000002', // no producer, 2 records
    ),
    section,
  ])
  batch.writeInt32BE(batch.length - 12, 8)
  batch.writeUInt32BE(referenceCrc32c(batch.subarray(21)), 17)
  return batch
}

const sections: Record<Exclude<CompressionType, 'none'> | 'snappy-raw', Buffer> = {
  // gzip: 10-byte header (no name, mtime 0, OS unknown), one final stored deflate block
  // (BFINAL=1, BTYPE=00, LEN 21, NLEN ~21), then CRC-32 and ISIZE, little-endian.
  gzip: hex(
    '1f8b 08 00 00000000 00 ff',
    '01 1500 eaff',
    RECORDS.toString('hex'),
    le32(referenceCrc32(RECORDS)),
    le32(21),
  ),
  // snappy, xerial framing: magic, version 1, compat 1, then one block of 23 bytes: the raw
  // snappy block = uncompressed length varint 21, literal tag (21-1)<<2 = 0x50, the bytes.
  snappy: hex('82 534e415050590 0', '00000001 00000001', '00000017', '15 50', RECORDS.toString('hex')),
  // raw snappy (no xerial header), as some non-Java clients write it.
  'snappy-raw': hex('15 50', RECORDS.toString('hex')),
  // LZ4 frame: magic 04224d18, FLG 0x60 (version 01, independent blocks), BD 0x40 (64 KiB),
  // HC 0x82 (second byte of xxh32 of FLG..BD; Kafka's standard header), one uncompressed block
  // (size | 0x80000000), end mark 0.
  lz4: hex('04224d18 60 40 82', le32(0x80000000 | 21), RECORDS.toString('hex'), '00000000'),
  // zstd frame: magic 28b52ffd, FHD 0x20 (single segment, 1-byte content size), content size 21,
  // one block header 1 | Raw << 1 | 21 << 3 = 0xa9 (3 bytes LE), the bytes; no checksum.
  zstd: hex('28b52ffd 20 15', 'a90000', RECORDS.toString('hex')),
}

const CODEC_IDS = { gzip: 1, snappy: 2, 'snappy-raw': 2, lz4: 3, zstd: 4 } as const

function fixturePath(name: string): string {
  return fileURLToPath(new URL(`../__fixtures__/batch-${name}.bin`, import.meta.url))
}

describe('hand-built golden batch per codec', () => {
  for (const [name, section] of Object.entries(sections) as Array<[keyof typeof sections, Buffer]>) {
    it(`${name}: the stored fixture equals the hand-built bytes and decodes to the golden records`, () => {
      const built = batchAround(CODEC_IDS[name], section)
      if (process.env.SLUICE_WRITE_FIXTURES === '1') writeFileSync(fixturePath(name), built)
      const stored = readFileSync(fixturePath(name))
      expect(stored.toString('hex')).toBe(built.toString('hex'))
      expect(validateBatches(stored)).toHaveLength(1)
      const [batch] = decodeRecordBatches(stored)
      expect(batch!.header.attributes & 7).toBe(CODEC_IDS[name])
      expect(batch!.records).toEqual(EXPECTED_RECORDS)
    })
  }

  it('snappy: accepts concatenated xerial streams (each with its own header)', () => {
    const stream = (part: Buffer): Buffer => {
      const block = Buffer.concat([Buffer.from([part.length, (part.length - 1) << 2]), part])
      return Buffer.concat([
        hex('82534e4150505900 00000001 00000001'),
        hex(block.length.toString(16).padStart(8, '0')),
        block,
      ])
    }
    const batch = batchAround(2, Buffer.concat([stream(RECORDS.subarray(0, 14)), stream(RECORDS.subarray(14))]))
    expect(decodeRecordBatches(batch)[0]!.records).toEqual(EXPECTED_RECORDS)
  })
})

describe('forged decompressed sizes', () => {
  it('are CORRUPT_MESSAGE before anything is allocated', () => {
    // raw snappy claiming 2^32 - 1 bytes from a 6-byte block
    const snappy = batchAround(2, hex('ffffffff0f 00'))
    // zstd frame, FHD 0xe0 (single segment, 8-byte content size) claiming 2^40 bytes
    const zstd = batchAround(4, hex('28b52ffd e0 0000000000010000', 'a90000', RECORDS.toString('hex')))
    for (const batch of [snappy, zstd]) {
      expect(() => decodeRecordBatches(batch)).toThrow(
        expect.objectContaining({ code: 'CORRUPT_MESSAGE', message: expect.stringMatching(/claims/) }),
      )
    }
  })
})

function manyRecords(count: number, valueBytes: number): RecordInput[] {
  const records: RecordInput[] = []
  for (let i = 0; i < count; i++) {
    const value = Buffer.alloc(valueBytes)
    for (let j = 0; j < valueBytes; j++) value[j] = (i * 31 + j * 7) & 0xff
    records.push({ key: Buffer.from(`key-${i}`), value, timestamp: T0 + BigInt(i) })
  }
  return records
}

describe('encoder output per codec', () => {
  const records = manyRecords(700, 200) // ~150 KiB: several xerial blocks, several LZ4 blocks
  const plainSection = encodeRecordBatch(records).subarray(61)

  const framing: Record<Exclude<CompressionType, 'none'>, string> = {
    gzip: '1f8b08',
    snappy: '82534e4150505900',
    lz4: '04224d18',
    zstd: '28b52ffd',
  }
  for (const [codec, magic] of Object.entries(framing) as Array<[Exclude<CompressionType, 'none'>, string]>) {
    it(`${codec}: standard framing, header uncompressed, CRC valid, round-trips`, () => {
      const batch = encodeRecordBatch(records, { compression: codec })
      const header = readBatchHeader(batch)!
      expect(header.attributes).toBe(CODEC_IDS[codec])
      expect([header.recordCount, header.lastOffsetDelta, header.baseTimestamp, header.maxTimestamp]).toEqual([
        700,
        699,
        T0,
        T0 + 699n,
      ])
      expect(batch.subarray(61, 61 + magic.length / 2).toString('hex')).toBe(magic)
      expect(batch.length).toBeLessThan(plainSection.length + 61)
      expect(validateBatches(batch)).toHaveLength(1)
      const decoded = decodeRecordBatches(batch)[0]!.records
      expect(decoded).toHaveLength(700)
      // Compare concatenations: deep-equality over 700 Buffers is needlessly slow.
      expect(Buffer.concat(decoded.map((r) => r.value!)).equals(Buffer.concat(records.map((r) => r.value!)))).toBe(true)
      expect(decoded[699]).toMatchObject({ offset: 699n, timestamp: T0 + 699n, key: Buffer.from('key-699') })
    })
  }

  it('snappy: xerial version/compat 1 and blocks of at most 32 KiB of input', () => {
    const batch = encodeRecordBatch(records, { compression: 'snappy' })
    expect(batch.readInt32BE(61 + 8)).toBe(1)
    expect(batch.readInt32BE(61 + 12)).toBe(1)
    let pos = 61 + 16
    let blocks = 0
    let inputBytes = 0
    while (pos < batch.length) {
      const length = batch.readInt32BE(pos)
      // A raw snappy block starts with its uncompressed length as an unsigned varint.
      let n = 0
      let shift = 0
      for (let p = pos + 4; ; p++) {
        n += (batch[p]! & 0x7f) * 2 ** shift
        shift += 7
        if ((batch[p]! & 0x80) === 0) break
      }
      expect(n).toBeLessThanOrEqual(XERIAL_BLOCK_BYTES)
      inputBytes += n
      blocks++
      pos += 4 + length
    }
    expect(pos).toBe(batch.length)
    expect(blocks).toBe(Math.ceil(plainSection.length / XERIAL_BLOCK_BYTES))
    expect(inputBytes).toBe(plainSection.length)
  })

  it('lz4: frame descriptor has version 01 and independent blocks, no content size', () => {
    const batch = encodeRecordBatch(records, { compression: 'lz4' })
    const flg = batch[61 + 4]!
    expect(flg >> 6).toBe(1) // version 01
    expect(flg & 0x20).toBe(0x20) // block independence, which Kafka's KafkaLZ4BlockInputStream requires
    expect(flg & 0x08).toBe(0) // no content size
  })
})
