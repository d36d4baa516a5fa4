import { describe, expect, it } from 'vitest'
import { crc32c } from '../crc32c.js'
import { SluiceError } from '../errors.js'
import { validateBatches } from './batch-header.js'
import { decodeRecordBatches } from './record-decoder.js'
import { encodeRecordBatch } from './record-encoder.js'

const T0 = 1700000000000n

function batch(values: string[], baseOffset = 0n): Buffer {
  return encodeRecordBatch(
    values.map((v, i) => ({ value: Buffer.from(v), timestamp: T0 + BigInt(i) })),
    { baseOffset },
  )
}

function thrown(fn: () => unknown): SluiceError {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(SluiceError)
    return err as SluiceError
  }
  throw new Error('expected a SluiceError')
}

describe('validateBatches on encoder output', () => {
  it('returns one span per concatenated valid batch', () => {
    const a = batch(['a', 'b', 'c'])
    const b = encodeRecordBatch([{ value: Buffer.from('zz') }], {
      compression: 'zstd',
      producerId: 9n,
      producerEpoch: 1,
      baseSequence: 3,
    })
    const spans = validateBatches(Buffer.concat([a, b]))
    expect(spans).toEqual([
      expect.objectContaining({
        position: 0,
        sizeBytes: a.length,
        recordCount: 3,
        lastOffsetDelta: 2,
        maxTimestamp: T0 + 2n,
        producerId: -1n,
      }),
      expect.objectContaining({
        position: a.length,
        sizeBytes: b.length,
        recordCount: 1,
        lastOffsetDelta: 0,
        producerId: 9n,
        producerEpoch: 1,
        baseSequence: 3,
        attributes: 4,
      }),
    ])
  })

  it('bad magic is CORRUPT_MESSAGE', () => {
    const buf = Buffer.concat([batch(['a']), batch(['b'])])
    buf[buf.length / 2 + 16] = 1 // the second batch's magic
    expect(thrown(() => validateBatches(buf)).code).toBe('CORRUPT_MESSAGE')
    expect(thrown(() => decodeRecordBatches(buf)).code).toBe('CORRUPT_MESSAGE')
  })

  it('a batchLength smaller than a header is INVALID_BATCH', () => {
    const buf = batch(['a'])
    buf.writeInt32BE(10, 8)
    expect(thrown(() => validateBatches(buf)).code).toBe('INVALID_BATCH')
    expect(thrown(() => decodeRecordBatches(buf)).code).toBe('INVALID_BATCH')
    expect(thrown(() => decodeRecordBatches(buf, { verifyCrc: false })).code).toBe('INVALID_BATCH')
  })

  it('a batchLength past the end is a truncated batch: validate throws, decode skips it', () => {
    const buf = batch(['a'])
    buf.writeInt32BE(buf.length, 8) // 12 bytes more than there are
    expect(thrown(() => validateBatches(buf)).code).toBe('CORRUPT_MESSAGE')
    expect(decodeRecordBatches(buf)).toEqual([])
  })

  it('a bad CRC is CORRUPT_MESSAGE, and verifyCrc: false decodes anyway', () => {
    const buf = batch(['hello'])
    buf.writeUInt32BE((buf.readUInt32BE(17) ^ 1) >>> 0, 17)
    expect(thrown(() => validateBatches(buf)).code).toBe('CORRUPT_MESSAGE')
    expect(thrown(() => decodeRecordBatches(buf)).code).toBe('CORRUPT_MESSAGE')
    expect(decodeRecordBatches(buf, { verifyCrc: false })[0]!.records[0]!.value).toEqual(Buffer.from('hello'))
  })

  it('an empty buffer has no batch to validate and decodes to nothing', () => {
    expect(thrown(() => validateBatches(Buffer.alloc(0))).code).toBe('INVALID_BATCH')
    expect(decodeRecordBatches(Buffer.alloc(0))).toEqual([])
  })

  it('records that disagree with their declared lengths are CORRUPT_MESSAGE even with a valid CRC', () => {
    const buf = batch(['abc'])
    buf[61] = 0x7e // record length 63: past the end of the batch
    // Re-stamp the CRC so only the record parser can notice.
    buf.writeUInt32BE(crc32c(buf.subarray(21)), 17)
    expect(validateBatches(buf)).toHaveLength(1) // the header is fine: brokers never parse records
    expect(thrown(() => decodeRecordBatches(buf)).code).toBe('CORRUPT_MESSAGE')
  })
})
