import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { isSluiceError } from '../errors.js'
import { checkBatchAt, validateBatches } from './batch-header.js'
import type { CompressionType, DecodedRecord, EncodeBatchOptions, RecordInput } from './record-types.js'
import { decodeRecordBatches } from './record-decoder.js'
import { encodeRecordBatch } from './record-encoder.js'

const T0 = 1700000000000n
const CODECS: CompressionType[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd']
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

// Large buffers come from a size and a fill pattern: fast-check is slow at 70 KB of random bytes.
const largeBytes = fc
  .record({ size: fc.integer({ min: 33_000, max: 70_000 }), seed: fc.integer({ min: 0, max: 255 }) })
  .map(({ size, seed }) => {
    const b = Buffer.allocUnsafe(size)
    for (let i = 0; i < size; i++) b[i] = (seed + i * (i % 7)) & 0xff
    return b
  })
const bytes = fc.oneof(
  { weight: 3, arbitrary: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)) },
  { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: largeBytes },
)
const timestamp = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: T0 - 100_000n, max: T0 + 100_000n }) },
  { weight: 1, arbitrary: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }) }, // forces 10-byte varlongs
)
const record: fc.Arbitrary<RecordInput> = fc.record(
  {
    key: bytes,
    value: bytes,
    headers: fc.array(fc.record({ key: fc.string({ unit: 'grapheme', maxLength: 20 }), value: bytes }), {
      maxLength: 4,
    }),
    timestamp,
  },
  { requiredKeys: ['value'] },
)
const options: fc.Arbitrary<EncodeBatchOptions> = fc.record(
  {
    compression: fc.constantFrom(...CODECS),
    baseOffset: fc.bigInt({ min: 0n, max: 2n ** 62n }),
    partitionLeaderEpoch: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
    producerId: fc.bigInt({ min: -1n, max: INT64_MAX }),
    producerEpoch: fc.integer({ min: -1, max: 32767 }),
    baseSequence: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
    isTransactional: fc.boolean(),
  },
  { requiredKeys: ['compression'] },
)

// Buffers compared as hex: vitest's deep equality walks 70 KB Buffers element by element.
function hexOf(b: Buffer | null | undefined): string | null {
  return b == null ? null : b.toString('hex')
}

/** What decoding must return for `input` given the batch's base timestamp and base offset. */
function expected(input: readonly RecordInput[], baseTimestamp: bigint, baseOffset: bigint): unknown[] {
  return input.map((r, i) => ({
    offset: baseOffset + BigInt(i),
    timestamp: r.timestamp ?? baseTimestamp,
    key: hexOf(r.key),
    value: hexOf(r.value),
    headers: (r.headers ?? []).map((h) => ({ key: h.key, value: hexOf(h.value) })),
  }))
}

function comparable(records: readonly DecodedRecord[]): unknown[] {
  return records.map((r) => ({
    offset: r.offset,
    timestamp: r.timestamp,
    key: hexOf(r.key),
    value: hexOf(r.value),
    headers: r.headers.map((h) => ({ key: h.key, value: hexOf(h.value) })),
  }))
}

function maxOf(values: bigint[]): bigint {
  return values.reduce((a, b) => (b > a ? b : a))
}

describe('record codec properties', () => {
  it('random records round-trip through every codec', () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 12 }), options, (input, opts) => {
        const batch = encodeRecordBatch(input, opts)
        const [decoded, ...rest] = decodeRecordBatches(batch)
        expect(rest).toHaveLength(0)
        const h = decoded!.header
        const base = input[0]!.timestamp ?? h.baseTimestamp
        expect(h.baseTimestamp).toBe(base)
        expect(h.maxTimestamp).toBe(maxOf(input.map((r) => r.timestamp ?? base)))
        expect([h.recordCount, h.lastOffsetDelta, h.baseOffset, h.producerId, h.sizeBytes]).toEqual([
          input.length,
          input.length - 1,
          opts.baseOffset ?? 0n,
          opts.producerId ?? -1n,
          batch.length,
        ])
        expect(h.attributes & 7).toBe(CODECS.indexOf(opts.compression!))
        expect(comparable(decoded!.records)).toEqual(expected(input, base, opts.baseOffset ?? 0n))
        expect(validateBatches(batch)).toHaveLength(1)
      }),
      { numRuns: 150 },
    )
  })

  it('several batches back to back decode in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(record, { minLength: 1, maxLength: 4 }), fc.constantFrom(...CODECS)), {
          minLength: 1,
          maxLength: 5,
        }),
        (specs) => {
          const batches = specs.map(([input, compression], i) =>
            encodeRecordBatch(input, { compression, baseOffset: BigInt(i * 100) }),
          )
          const decoded = decodeRecordBatches(Buffer.concat(batches))
          expect(decoded.map((d) => d.header.baseOffset)).toEqual(specs.map((_, i) => BigInt(i * 100)))
          expect(decoded.map((d) => d.records.length)).toEqual(specs.map(([input]) => input.length))
          expect(validateBatches(Buffer.concat(batches)).map((s) => s.sizeBytes)).toEqual(batches.map((b) => b.length))
        },
      ),
      { numRuns: 40 },
    )
  })

  it('a flipped byte anywhere after byte 21 is a CRC failure (CORRUPT_MESSAGE)', () => {
    const batchArb = fc
      .tuple(fc.array(record, { minLength: 1, maxLength: 4 }), fc.constantFrom(...CODECS))
      .map(([input, compression]) => encodeRecordBatch(input, { compression }))
    fc.assert(
      fc.property(batchArb, fc.nat(), fc.integer({ min: 1, max: 255 }), (batch, at, mask) => {
        const i = 21 + (at % (batch.length - 21))
        const bad = Buffer.from(batch)
        bad[i] = bad[i]! ^ mask
        expect(checkBatchAt(bad, 0)?.kind).toBe('bad-crc')
        expect(() => decodeRecordBatches(bad)).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE' }))
        expect(() => validateBatches(bad)).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE' }))
      }),
      { numRuns: 200 },
    )
  })

  it('without CRC checks, corrupt bytes still only ever produce a SluiceError', () => {
    const batchArb = fc
      .tuple(fc.array(record, { minLength: 1, maxLength: 4 }), fc.constantFrom(...CODECS))
      .map(([input, compression]) => encodeRecordBatch(input, { compression }))
    fc.assert(
      fc.property(
        batchArb,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }),
        (batch, flips) => {
          const bad = Buffer.from(batch)
          for (const [at, mask] of flips) {
            const i = 21 + (at % (bad.length - 21))
            bad[i] = bad[i]! ^ mask
          }
          try {
            decodeRecordBatches(bad, { verifyCrc: false })
          } catch (err) {
            if (!isSluiceError(err)) throw err
            expect(['CORRUPT_MESSAGE', 'INVALID_BATCH']).toContain(err.code)
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it('a truncated trailing batch is skipped by decode but rejected by validateBatches', () => {
    const arb = fc.tuple(
      fc.array(record, { minLength: 1, maxLength: 3 }),
      fc.array(record, { minLength: 1, maxLength: 3 }),
      fc.constantFrom(...CODECS),
      fc.nat(),
    )
    fc.assert(
      fc.property(arb, ([first, second, compression, cut]) => {
        const a = encodeRecordBatch(first, { compression })
        const b = encodeRecordBatch(second, { compression, baseOffset: 50n })
        const keep = cut % b.length // 0 .. b.length-1 bytes of the second batch
        const buf = Buffer.concat([a, b.subarray(0, keep)])
        const decoded = decodeRecordBatches(buf)
        expect(decoded).toHaveLength(1)
        expect(decoded[0]!.records).toHaveLength(first.length)
        if (keep > 0) {
          expect(() => validateBatches(buf)).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE' }))
          expect(checkBatchAt(buf, a.length)?.kind).toBe('truncated')
        }
        expect(decodeRecordBatches(b.subarray(0, Math.max(1, keep)))).toEqual([])
      }),
      { numRuns: 100 },
    )
  })
})
