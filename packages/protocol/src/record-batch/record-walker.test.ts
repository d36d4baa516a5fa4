import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { crc32c } from '../crc32c.js'
import { isSluiceError } from '../errors.js'
import {
  CONTROL_MASK,
  OFF_ATTRIBUTES,
  OFF_CRC,
  OFF_LAST_OFFSET_DELTA,
  OFF_MAX_TIMESTAMP,
  OFF_RECORD_COUNT,
  type BatchHeader,
} from './batch-header.js'
import { decodeRecordBatches } from './record-decoder.js'
import { encodeRecordBatch } from './record-encoder.js'
import type { CompressionType, EncodeBatchOptions, RecordHeader, RecordInput } from './record-types.js'
import { frameBatchAt, walkBatch, walkRecordBatches, type RecordSink, type WalkOptions } from './record-walker.js'

const T0 = 1700000000000n
const CODECS: CompressionType[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd']

interface Seen {
  offset: bigint
  timestamp: bigint
  key: string | null
  value: string | null
  headers: Array<{ key: string; value: string | null }>
}

/** Walks `buf` with a sink that records what it is handed (buffers as hex) and the batches offered. */
function walk(
  buf: Buffer,
  options: WalkOptions = {},
  accept: (h: BatchHeader) => boolean = () => true,
): { records: Seen[]; batches: BatchHeader[] } {
  const records: Seen[] = []
  const batches: BatchHeader[] = []
  const sink: RecordSink = {
    batch: (h) => {
      batches.push(h)
      return accept(h)
    },
    record: (offset: bigint, timestamp: bigint, key: Buffer | null, value: Buffer | null, headers: RecordHeader[]) => {
      expect(key === null || Buffer.isBuffer(key)).toBe(true)
      expect(value === null || Buffer.isBuffer(value)).toBe(true)
      records.push({
        offset,
        timestamp,
        key: key?.toString('hex') ?? null,
        value: value?.toString('hex') ?? null,
        headers: headers.map((h) => ({ key: h.key, value: h.value?.toString('hex') ?? null })),
      })
    },
  }
  walkRecordBatches(buf, sink, options)
  return { records, batches }
}

function expected(input: readonly RecordInput[], baseOffset: bigint, baseTimestamp = T0): Seen[] {
  return input.map((r, i) => ({
    offset: baseOffset + BigInt(i),
    timestamp: r.timestamp ?? baseTimestamp,
    key: r.key?.toString('hex') ?? null,
    value: r.value?.toString('hex') ?? null,
    headers: (r.headers ?? []).map((h) => ({ key: h.key, value: h.value?.toString('hex') ?? null })),
  }))
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

describe('walkRecordBatches', () => {
  it.each(CODECS)(
    'round-trips keys, nulls, headers and timestamps (%s), as decodeRecordBatches does',
    (compression) => {
      const buf = Buffer.concat([
        encodeRecordBatch(mixed, { compression, baseOffset: 10n, baseTimestamp: T0 }),
        encodeRecordBatch(mixed.slice(0, 2), { compression, baseOffset: 15n, baseTimestamp: T0 }),
      ])
      const { records, batches } = walk(buf)
      expect(records).toEqual([...expected(mixed, 10n), ...expected(mixed.slice(0, 2), 15n)])
      expect(batches.map((b) => b.baseOffset)).toEqual([10n, 15n])
      const decoded = decodeRecordBatches(buf)
        .flatMap((b) => b.records)
        .map((r) => r.offset)
      expect(decoded).toEqual(records.map((r) => r.offset))
    },
  )

  it('handles base offsets beyond 2^52 (the bigint path) exactly', () => {
    const base = 2n ** 62n + 3n
    expect(walk(encodeRecordBatch(mixed, { baseOffset: base, baseTimestamp: T0 })).records).toEqual(
      expected(mixed, base),
    )
    expect(
      walk(encodeRecordBatch(mixed, { baseOffset: base }), { minOffset: base + 3n }).records.map((r) => r.offset),
    ).toEqual([base + 3n, base + 4n])
  })

  it('gives every record the batch maxTimestamp under LogAppendTime', () => {
    const b = encodeRecordBatch(mixed.slice(0, 3), { timestampType: 'LogAppendTime', baseTimestamp: T0 })
    b.writeBigInt64BE(T0 + 1234n, OFF_MAX_TIMESTAMP) // the broker's append time
    recrc(b)
    expect(walk(b).records.map((r) => r.timestamp)).toEqual([T0 + 1234n, T0 + 1234n, T0 + 1234n])
  })

  it('hands no record of a declined (control) batch, but still checks it', () => {
    const control = encodeRecordBatch([{ key: Buffer.from([0, 0, 0, 0]), value: Buffer.from([0, 0, 0, 0, 0, 0]) }], {
      isControl: true,
      baseOffset: 2n,
    })
    const buf = Buffer.concat([
      encodeRecordBatch(mixed.slice(0, 2)),
      control,
      encodeRecordBatch(mixed.slice(0, 1), { baseOffset: 3n }),
    ])
    const skipControl = (h: BatchHeader): boolean => (h.attributes & CONTROL_MASK) === 0
    const { records, batches } = walk(buf, {}, skipControl)
    expect(records.map((r) => r.offset)).toEqual([0n, 1n, 3n])
    expect(batches.map((b) => (b.attributes & CONTROL_MASK) !== 0)).toEqual([false, true, false])
    // A control batch whose record is malformed (CRC recomputed) is rejected though declined.
    const bad = Buffer.from(control)
    bad.writeInt32BE(2, OFF_RECORD_COUNT)
    bad.writeInt32BE(1, OFF_LAST_OFFSET_DELTA)
    expect(codeOf(() => walk(recrc(bad), {}, skipControl))).toBe('CORRUPT_MESSAGE')
  })

  it('skips records below minOffset without handing them over', () => {
    const buf = Buffer.concat([
      encodeRecordBatch(mixed, { baseOffset: 0n }),
      encodeRecordBatch(mixed, { baseOffset: 5n }),
    ])
    expect(walk(buf, { minOffset: 3n }).records.map((r) => r.offset)).toEqual([3n, 4n, 5n, 6n, 7n, 8n, 9n])
    expect(walk(buf, { minOffset: 5n }).records[0]).toEqual(expected(mixed, 5n)[0])
    expect(walk(buf, { minOffset: 10n }).records).toEqual([])
    expect(walk(buf, { minOffset: 2n ** 40n }).records).toEqual([])
    expect(walk(buf, { minOffset: -(2n ** 40n) }).records).toHaveLength(10)
    // Skipped records are still parsed: a malformed one fails even below minOffset.
    const bad = encodeRecordBatch([{ value: Buffer.from('abc') }])
    bad[bad.length - 1] = 0x02 // header count 1 where no header follows
    expect(codeOf(() => walk(recrc(bad), { minOffset: 100n }))).toBe('CORRUPT_MESSAGE')
  })

  it('checks the CRC before handing over any record', () => {
    const buf = encodeRecordBatch(mixed)
    buf[buf.length - 1]! ^= 0xff
    let handed = 0
    const sink: RecordSink = {
      batch: () => true,
      record: () => {
        handed++
      },
    }
    expect(
      codeOf(() => {
        walkRecordBatches(buf, sink)
      }),
    ).toBe('CORRUPT_MESSAGE')
    expect(handed).toBe(0)
    // verifyCrc false parses it (the flipped byte is the header count: 0xff is a bad varint end).
    expect(
      codeOf(() => {
        walkRecordBatches(buf, sink, { verifyCrc: false })
      }),
    ).toBe('CORRUPT_MESSAGE')
  })

  it('skips a truncated trailing batch and rejects bad lengths', () => {
    const a = encodeRecordBatch(mixed.slice(0, 2))
    const b = encodeRecordBatch(mixed.slice(0, 2), { baseOffset: 2n })
    for (const cut of [1, 30, 61, b.length - 1]) {
      expect(walk(Buffer.concat([a, b.subarray(0, cut)])).records.map((r) => r.offset)).toEqual([0n, 1n])
    }
    expect(walk(b.subarray(0, 40)).records).toEqual([])
    const short = Buffer.from(a)
    short.writeInt32BE(10, 8) // batchLength smaller than a header
    expect(codeOf(() => walk(short))).toBe('INVALID_BATCH')
  })

  it('turns hostile record bytes (CRC recomputed) into SluiceErrors only', () => {
    const clean = encodeRecordBatch(
      mixed
        .slice(0, 3)
        .concat([{ key: Buffer.from('k'), value: Buffer.from('v'), headers: [{ key: 'x', value: Buffer.from('y') }] }]),
    )
    const huge = Buffer.from(clean)
    huge.writeInt32BE(2 ** 30, OFF_RECORD_COUNT)
    huge.writeInt32BE(2 ** 30, OFF_LAST_OFFSET_DELTA)
    expect(codeOf(() => walk(recrc(huge)))).toBe('CORRUPT_MESSAGE')
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ at: fc.integer({ min: 61, max: clean.length - 1 }), byte: fc.integer({ min: 0, max: 255 }) }),
          { minLength: 1, maxLength: 4 },
        ),
        fc.boolean(),
        (edits, skipAll) => {
          const b = Buffer.from(clean)
          for (const e of edits) b[e.at] = e.byte
          const code = codeOf(() => walk(recrc(b), { minOffset: skipAll ? 100n : undefined }))
          expect(['ok', 'CORRUPT_MESSAGE', 'INVALID_BATCH']).toContain(code)
        },
      ),
      { numRuns: 1500 },
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
      {
        compression: fc.constantFrom(...CODECS),
        baseOffset: fc.bigInt({ min: 0n, max: 2n ** 62n }),
      },
      { requiredKeys: ['compression', 'baseOffset'] },
    )
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 20 }), options, fc.nat(25), (input, opts, skip) => {
        const buf = encodeRecordBatch(input, opts)
        const minOffset = opts.baseOffset! + BigInt(skip)
        const want = decodeRecordBatches(buf)[0]!.records.filter((r) => r.offset >= minOffset)
        const got = walk(buf, { minOffset }).records
        expect(got.map((r) => [r.offset, r.timestamp, r.value])).toEqual(
          want.map((r) => [r.offset, r.timestamp, r.value?.toString('hex') ?? null]),
        )
      }),
      { numRuns: 200 },
    )
  })
})

describe('frameBatchAt and walkBatch (framing once, records later)', () => {
  it('frame the complete batches and walk them as walkRecordBatches does', () => {
    const a = encodeRecordBatch(mixed, { baseOffset: 10n, baseTimestamp: T0 })
    const b = encodeRecordBatch(mixed.slice(0, 2), { compression: 'lz4', baseOffset: 15n, baseTimestamp: T0 })
    const buf = Buffer.concat([a, b, b.subarray(0, 30)]) // a truncated tail is not framed
    const headers: BatchHeader[] = []
    for (let h = frameBatchAt(buf, 0); h !== undefined; h = frameBatchAt(buf, h.position + h.sizeBytes)) headers.push(h)
    expect(headers.map((h) => [h.position, h.baseOffset])).toEqual([
      [0, 10n],
      [a.length, 15n],
    ])
    const whole = walk(buf, { minOffset: 12n })
    const offsets: bigint[] = []
    const sink: RecordSink = {
      batch: () => true,
      record: (offset) => {
        offsets.push(offset)
      },
    }
    for (const h of headers) walkBatch(buf, h, sink, { minOffset: 12n })
    expect(offsets).toEqual(whole.records.map((r) => r.offset))
  })

  it('reject a bad length or magic when framing, and a bad CRC when walking', () => {
    const a = encodeRecordBatch(mixed.slice(0, 2))
    const short = Buffer.from(a)
    short.writeInt32BE(10, 8)
    expect(codeOf(() => frameBatchAt(short, 0))).toBe('INVALID_BATCH')
    const magic = Buffer.from(a)
    magic.writeInt8(1, 16)
    expect(codeOf(() => frameBatchAt(magic, 0))).toBe('CORRUPT_MESSAGE')
    const flipped = Buffer.from(a)
    flipped[flipped.length - 1]! ^= 0xff
    const header = frameBatchAt(flipped, 0)! // framing does not read the CRC
    let handed = 0
    expect(
      codeOf(() => {
        walkBatch(flipped, header, {
          batch: () => true,
          record: () => {
            handed++
          },
        })
      }),
    ).toBe('CORRUPT_MESSAGE')
    expect(handed).toBe(0)
  })
})
