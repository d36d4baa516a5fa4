import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { crc32c } from '../crc32c.js'
import { isSluiceError } from '../errors.js'
import { CONTROL_MASK, OFF_ATTRIBUTES, OFF_CRC, type BatchHeader } from './batch-header.js'
import { decodeRecordBatches } from './record-decoder.js'
import { encodeRecordBatch } from './record-encoder.js'
import type { CompressionType, DecodedRecord, EncodeBatchOptions, RecordInput } from './record-types.js'
import {
  frameBatchAt,
  readRecordHeaders,
  readRecordKey,
  readRecordValue,
  walkBatchLazily,
  type RecordPositionSink,
  type WalkOptions,
} from './record-walker.js'

const T0 = 1700000000000n
const CODECS: CompressionType[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd']

interface Position {
  data: Buffer
  keyPos: number
  offset: number | bigint
  timestamp: number | bigint
}

/** Walks every complete batch of `buf` lazily; returns the positions handed over. */
function walkLazily(buf: Buffer, options: WalkOptions = {}, accept: (h: BatchHeader) => boolean = () => true) {
  const out: Position[] = []
  const sink: RecordPositionSink = {
    batch: accept,
    record: (data, keyPos, offset, timestamp) => {
      out.push({ data, keyPos, offset, timestamp })
    },
  }
  let pos = 0
  for (let h = frameBatchAt(buf, 0); h !== undefined; h = frameBatchAt(buf, pos)) {
    walkBatchLazily(buf, h, sink, options)
    pos += h.sizeBytes
  }
  return out
}

/** A lazily walked record decoded field by field, in the shape decodeRecordBatches gives. */
function decoded(p: Position): DecodedRecord {
  return {
    offset: BigInt(p.offset),
    timestamp: BigInt(p.timestamp),
    key: readRecordKey(p.data, p.keyPos),
    value: readRecordValue(p.data, p.keyPos),
    headers: readRecordHeaders(p.data, p.keyPos),
  }
}

/** Rewrites the batch's CRC after a test changed bytes it covers (a well-formed but hostile batch). */
function recrc(b: Buffer): Buffer {
  b.writeUInt32BE(crc32c(b.subarray(OFF_ATTRIBUTES)), OFF_CRC)
  return b
}

function codeOf(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    if (isSluiceError(err)) return err.code
    throw err
  }
  return 'ok'
}

const mixed: RecordInput[] = [
  { key: Buffer.from('k1'), value: Buffer.from('v1'), timestamp: T0 },
  { key: null, value: null, timestamp: T0 + 5n },
  {
    value: Buffer.alloc(0),
    headers: [
      { key: 'h', value: Buffer.from([1, 2]) },
      { key: 'ünï', value: null },
    ],
    timestamp: T0 - 3n,
  },
  { key: Buffer.alloc(300, 7), value: Buffer.alloc(70_000, 9), timestamp: T0 + 5n },
  { value: Buffer.from('extremes'), timestamp: -(2n ** 63n) }, // a 10-byte (bigint) delta
]

describe('walkBatchLazily and the record field readers', () => {
  it.each(CODECS)(
    'give every field decodeRecordBatches gives (%s): keys, nulls, headers, timestamps',
    (compression) => {
      const buf = encodeRecordBatch(mixed, { compression, baseOffset: 40n })
      const positions = walkLazily(buf)
      expect(positions.map(decoded)).toEqual(decodeRecordBatches(buf)[0]!.records)
      // Offsets and ordinary timestamps come as numbers; the one outside ±2^53 as an exact bigint.
      expect(positions.map((p) => typeof p.offset)).toEqual(['number', 'number', 'number', 'number', 'number'])
      expect(positions.map((p) => p.timestamp)).toEqual([
        Number(T0),
        Number(T0 + 5n),
        Number(T0 - 3n),
        Number(T0 + 5n),
        -(2n ** 63n),
      ])
      // Fields are views of the walked data (the decompressed records section when compressed).
      const v = readRecordValue(positions[0]!.data, positions[0]!.keyPos)!
      expect(v.buffer).toBe(positions[0]!.data.buffer)
    },
  )

  it('hands out offsets at and beyond 2^53 exactly, as bigints', () => {
    const base = 2n ** 53n - 2n
    const buf = encodeRecordBatch(
      [0, 1, 2, 3].map((i) => ({ value: Buffer.from([i]), timestamp: T0 })),
      { baseOffset: base },
    )
    const offsets = walkLazily(buf).map((p) => p.offset)
    expect(offsets.map((o) => BigInt(o))).toEqual([base, base + 1n, base + 2n, base + 3n])
    expect(offsets.every((o) => typeof o === 'bigint')).toBe(true) // the base is past the number range
    const small = walkLazily(encodeRecordBatch([{ value: null }], { baseOffset: 2n ** 51n }))
    expect(small[0]!.offset).toBe(2 ** 51)
  })

  it('gives every record the batch maxTimestamp with LogAppendTime', () => {
    const buf = encodeRecordBatch(mixed.slice(0, 3), { timestampType: 'LogAppendTime' })
    const want = decodeRecordBatches(buf)[0]!.records.map((r) => r.timestamp)
    expect(walkLazily(buf).map((p) => BigInt(p.timestamp))).toEqual(want)
    expect(new Set(want).size).toBe(1)
  })

  it('skips records below minOffset and batches the sink declines, after checking them', () => {
    const data = encodeRecordBatch(mixed, { baseOffset: 10n })
    const control = encodeRecordBatch([{ value: Buffer.from([0, 0, 0, 0]) }], { baseOffset: 15n, isControl: true })
    expect((control.readInt16BE(OFF_ATTRIBUTES) & CONTROL_MASK) !== 0).toBe(true)
    const buf = Buffer.concat([data, control])
    const got = walkLazily(buf, { minOffset: 12n }, (h) => (h.attributes & CONTROL_MASK) === 0)
    expect(got.map((p) => p.offset)).toEqual([12, 13, 14])
    expect(got.map(decoded)).toEqual(decodeRecordBatches(data)[0]!.records.slice(2))
  })

  it('reads many records (a batch of 10,000) in order', () => {
    const input = Array.from({ length: 10_000 }, (_, i) => ({
      key: i % 3 === 0 ? null : Buffer.from(`k${i}`),
      value: Buffer.from(`v${i}`),
      headers: i % 7 === 0 ? [{ key: 'i', value: Buffer.from(String(i)) }] : [],
      timestamp: T0 + BigInt(i >> 4),
    }))
    const positions = walkLazily(encodeRecordBatch(input, { compression: 'lz4', baseOffset: 5n }))
    expect(positions).toHaveLength(10_000)
    positions.forEach((p, i) => {
      expect(p.offset).toBe(5 + i)
      expect(readRecordValue(p.data, p.keyPos)!.toString()).toBe(`v${i}`)
      expect(readRecordKey(p.data, p.keyPos)?.toString() ?? null).toBe(i % 3 === 0 ? null : `k${i}`)
      expect(readRecordHeaders(p.data, p.keyPos).length).toBe(i % 7 === 0 ? 1 : 0)
    })
  })

  it('rejects a malformed record at walk time with a typed error', () => {
    const buf = encodeRecordBatch(mixed, { baseOffset: 0n })
    const header = frameBatchAt(buf, 0)!
    buf[buf.length - 1]! ^= 0xff
    const handed: unknown[] = []
    const sink: RecordPositionSink = { batch: () => true, record: (...args) => handed.push(args) }
    expect(codeOf(() => walkBatchLazily(buf, header, sink))).toBe('CORRUPT_MESSAGE') // the CRC, before any record
    expect(handed).toEqual([])
    // A hostile batch with a correct CRC: the second record's key length runs past its record.
    const hostile = encodeRecordBatch(mixed.slice(0, 2), { baseOffset: 0n })
    const first = hostile[61]! >> 1 // the first record's length (one-byte zigzag varint)
    hostile[61 + 1 + first + 4] = 0x7e // second record: length, attributes, ts delta, offset delta, key length
    recrc(hostile)
    expect(codeOf(() => walkBatchLazily(hostile, frameBatchAt(hostile, 0)!, sink))).toBe('CORRUPT_MESSAGE')
    expect(handed).toHaveLength(1) // records before the bad one stay handed (the consumer drops them)
  })

  it('field readers given any bytes at any position throw a SluiceError or decode, never crash', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(70), (bytes, at) => {
        const data = Buffer.from(bytes)
        for (const read of [readRecordKey, readRecordValue, readRecordHeaders]) {
          try {
            read(data, at)
          } catch (err) {
            expect(isSluiceError(err) && err.code === 'CORRUPT_MESSAGE').toBe(true)
          }
        }
      }),
      { numRuns: 2000 },
    )
  })

  it('agrees with decodeRecordBatches on random batches and offsets', () => {
    const bytes = fc.oneof(
      fc.constant(null),
      fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)),
    )
    const record: fc.Arbitrary<RecordInput> = fc.record(
      {
        key: bytes,
        value: bytes,
        headers: fc.array(fc.record({ key: fc.string({ maxLength: 5 }), value: bytes }), { maxLength: 2 }),
        timestamp: fc.bigInt({ min: T0 - 1000n, max: T0 + 1000n }),
      },
      { requiredKeys: ['value'] },
    )
    const options: fc.Arbitrary<EncodeBatchOptions> = fc.record(
      { compression: fc.constantFrom(...CODECS), baseOffset: fc.bigInt({ min: 0n, max: 2n ** 62n }) },
      { requiredKeys: ['compression', 'baseOffset'] },
    )
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 20 }), options, fc.nat(25), (input, opts, skip) => {
        const buf = encodeRecordBatch(input, opts)
        const minOffset = opts.baseOffset! + BigInt(skip)
        const want = decodeRecordBatches(buf)[0]!.records.filter((r) => r.offset >= minOffset)
        expect(walkLazily(buf, { minOffset }).map(decoded)).toEqual(want)
      }),
      { numRuns: 200 },
    )
  })
})
