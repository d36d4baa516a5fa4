/**
 * encodeRecordBatch against a deliberately naive reference (bigint zig-zag, one Buffer.concat per
 * record, a full bigint max for maxTimestamp), on the shapes the optimised size and write passes
 * treat specially: null vs empty keys and values, headers, varint length boundaries, many records
 * (scratch growth), timestamps shared between records, changing, older than the base, and beyond
 * 2^52 ms. Also the typed errors for bad input.
 */
import { describe, expect, it } from 'vitest'
import { crc32c } from '../crc32c.js'
import { SluiceError } from '../errors.js'
import { decodeRecordBatches } from './record-decoder.js'
import { encodeRecordBatch } from './record-encoder.js'
import type { RecordHeader, RecordInput } from './record-types.js'

const T0 = 1700000000000n

function varlong(n: bigint): Buffer {
  let v = BigInt.asUintN(64, (BigInt.asIntN(64, n) << 1n) ^ (BigInt.asIntN(64, n) >> 63n))
  const out: number[] = []
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80)
    v >>= 7n
  }
  out.push(Number(v))
  return Buffer.from(out)
}

function bytesField(b: Buffer | null | undefined): Buffer {
  return b == null ? varlong(-1n) : Buffer.concat([varlong(BigInt(b.length)), b])
}

function referenceHeaders(headers: RecordHeader[] | undefined): Buffer {
  if (headers === undefined) return varlong(0n)
  return Buffer.concat([
    varlong(BigInt(headers.length)),
    ...headers.flatMap((h) => [bytesField(Buffer.from(h.key, 'utf8')), bytesField(h.value)]),
  ])
}

/** The uncompressed, non-idempotent batch encodeRecordBatch(records) should produce. */
function referenceBatch(records: RecordInput[], baseTimestamp = records[0]!.timestamp!): Buffer {
  const body = Buffer.concat(
    records.map((r, i) => {
      const ts = r.timestamp ?? baseTimestamp
      const rec = Buffer.concat([
        Buffer.from([0]),
        varlong(ts - baseTimestamp),
        varlong(BigInt(i)),
        bytesField(r.key),
        bytesField(r.value),
        referenceHeaders(r.headers),
      ])
      return Buffer.concat([varlong(BigInt(rec.length)), rec])
    }),
  )
  let max = records[0]!.timestamp ?? baseTimestamp
  for (const r of records) if ((r.timestamp ?? baseTimestamp) > max) max = r.timestamp ?? baseTimestamp
  const h = Buffer.alloc(61)
  h.writeBigInt64BE(0n, 0)
  h.writeInt32BE(61 + body.length - 12, 8)
  h.writeInt32BE(-1, 12)
  h.writeInt8(2, 16)
  h.writeInt16BE(0, 21)
  h.writeInt32BE(records.length - 1, 23)
  h.writeBigInt64BE(baseTimestamp, 27)
  h.writeBigInt64BE(max, 35)
  h.writeBigInt64BE(-1n, 43)
  h.writeInt16BE(-1, 51)
  h.writeInt32BE(-1, 53)
  h.writeInt32BE(records.length, 57)
  const batch = Buffer.concat([h, body])
  batch.writeUInt32BE(crc32c(batch.subarray(21)), 17)
  return batch
}

function expectLikeReference(records: RecordInput[], baseTimestamp?: bigint): Buffer {
  const batch = encodeRecordBatch(records, baseTimestamp === undefined ? {} : { baseTimestamp })
  expect(batch.toString('hex')).toBe(referenceBatch(records, baseTimestamp).toString('hex'))
  return batch
}

describe('encodeRecordBatch matches the naive reference', () => {
  it('null and empty keys and values, undefined and empty headers', () => {
    const empty = Buffer.alloc(0)
    const records: RecordInput[] = [
      { key: null, value: null, timestamp: T0 },
      { key: empty, value: empty, timestamp: T0 },
      { value: Buffer.from('v'), headers: [], timestamp: T0 },
      { key: Buffer.from('k'), value: empty, headers: undefined, timestamp: T0 },
    ]
    const batch = expectLikeReference(records)
    const decoded = decodeRecordBatches(batch)[0]!.records
    expect(decoded.map((r) => [r.key?.length ?? null, r.value?.length ?? null])).toEqual([
      [null, null],
      [0, 0],
      [null, 1],
      [1, 0],
    ])
  })

  it('headers: null values, empty and multi-byte UTF-8 keys, many of them', () => {
    const headers: RecordHeader[] = [
      { key: '', value: null },
      { key: 'é-ü-日本', value: Buffer.from('x') },
      ...Array.from({ length: 70 }, (_, i) => ({ key: `h${i}`, value: i % 3 === 0 ? null : Buffer.alloc(i, 1) })),
    ]
    const records: RecordInput[] = [
      { value: Buffer.from('a'), headers, timestamp: T0 },
      { key: null, value: null, headers: headers.slice(0, 1), timestamp: T0 },
    ]
    const batch = expectLikeReference(records)
    const [first] = decodeRecordBatches(batch)[0]!.records
    expect(first!.headers.map((h) => h.key)).toEqual(headers.map((h) => h.key))
  })

  it('key, value and record lengths on both sides of the 1/2/3-byte varint boundaries', () => {
    // Zig-zag: lengths 63/64 and 8191/8192 change the length varints; the record length varint
    // crosses the same boundaries a few bytes earlier.
    const lengths = [0, 1, 55, 56, 57, 58, 62, 63, 64, 65, 8183, 8184, 8185, 8191, 8192, 8193, 1048575, 1048576]
    const records: RecordInput[] = lengths.map((n, i) => ({
      key: i % 2 === 0 ? null : Buffer.alloc(n % 70, 2),
      value: Buffer.alloc(n, 7),
      timestamp: T0,
    }))
    expectLikeReference(records)
  })

  it('thousands of records of mixed sizes (scratch growth), offset deltas past one varint byte', () => {
    const records: RecordInput[] = Array.from({ length: 5000 }, (_, i) => ({
      key: i % 7 === 0 ? null : Buffer.from(`key-${i}`),
      value: Buffer.alloc((i * 37) % 300, i & 0xff),
      timestamp: T0 + BigInt(Math.floor(i / 1000)),
    }))
    const batch = expectLikeReference(records)
    expect(decodeRecordBatches(batch)[0]!.records).toHaveLength(5000)
    // A second, smaller batch after the large one is unaffected by the grown scratch.
    expectLikeReference(records.slice(0, 3))
  })

  it('timestamps: shared objects, equal values in distinct bigints, changes back and forth, older records', () => {
    const a = T0
    const b = T0 + 5n
    const records: RecordInput[] = [a, a, BigInt(T0.toString()), b, b, a, T0 - 1000n, T0 - 1000n, b, undefined].map(
      (timestamp) => ({ value: Buffer.from('v'), timestamp }),
    )
    expectLikeReference(records)
  })

  it('maxTimestamp when every record is older than an explicit baseTimestamp', () => {
    const records: RecordInput[] = [
      { value: null, timestamp: T0 - 10n },
      { value: null, timestamp: T0 - 3n },
      { value: null, timestamp: T0 - 7n },
    ]
    const batch = expectLikeReference(records, T0)
    expect(batch.readBigInt64BE(35)).toBe(T0 - 3n)
  })

  it('timestamp deltas at and beyond 2^52 ms (the bigint path), mixed with small ones', () => {
    const records: RecordInput[] = [
      { value: null, timestamp: 0n },
      { value: null, timestamp: 2n ** 52n - 1n },
      { value: null, timestamp: 2n ** 52n },
      { value: null, timestamp: 2n ** 62n },
      { value: null, timestamp: 5n },
      { value: null, timestamp: -(2n ** 60n) },
    ]
    const batch = expectLikeReference(records)
    expect(batch.readBigInt64BE(35)).toBe(2n ** 62n)
    expect(decodeRecordBatches(batch)[0]!.records.map((r) => r.timestamp)).toEqual(records.map((r) => r.timestamp))
  })

  it('compressed batches carry the same records', () => {
    const records: RecordInput[] = Array.from({ length: 1500 }, (_, i) => ({
      key: i % 2 === 0 ? null : Buffer.from(`k${i}`),
      value: Buffer.alloc(100, i & 0xff),
      timestamp: T0 + BigInt(i >> 9),
    }))
    const plain = decodeRecordBatches(encodeRecordBatch(records))[0]!.records
    for (const compression of ['gzip', 'snappy', 'lz4', 'zstd'] as const) {
      const decoded = decodeRecordBatches(encodeRecordBatch(records, { compression }))[0]!.records
      expect(decoded.map((r) => [r.offset, r.timestamp, r.key?.toString('hex'), r.value?.toString('hex')])).toEqual(
        plain.map((r) => [r.offset, r.timestamp, r.key?.toString('hex'), r.value?.toString('hex')]),
      )
    }
  })
})

describe('encodeRecordBatch rejects bad input with typed errors', () => {
  it('non-Buffer keys, values and header values; non-string header keys; no records', () => {
    const bad: RecordInput[][] = [
      [{ key: 'k' as unknown as Buffer, value: null, timestamp: T0 }],
      [{ value: 42 as unknown as Buffer, timestamp: T0 }],
      [{ value: null, headers: [{ key: 'h', value: 'x' as unknown as Buffer }], timestamp: T0 }],
      [{ value: null, headers: [{ key: 7 as unknown as string, value: null }], timestamp: T0 }],
      [],
    ]
    for (const records of bad) {
      let err: unknown
      try {
        encodeRecordBatch(records)
      } catch (e) {
        err = e
      }
      expect(err).toBeInstanceOf(SluiceError)
      expect((err as SluiceError).code).toBe('INVALID_ARGUMENT')
    }
    // A failed call leaves nothing behind that affects the next one.
    expectLikeReference([{ value: Buffer.from('ok'), timestamp: T0 }])
  })
})
