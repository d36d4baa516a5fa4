import { describe, expect, it } from 'vitest'
import { hex, referenceCrc32c } from '../__fixtures__/reference-checksums.js'
import { readBatchHeader, validateBatches } from './batch-header.js'
import { decodeRecordBatches } from './record-decoder.js'
import { encodeRecordBatch } from './record-encoder.js'

// 1700000000000 ms = 0x0000_018B_CFE5_6800.
const T0 = 1700000000000n

/**
 * Golden batch 1, written out byte by byte from docs/kafka-facts.md §1.1-1.3: uncompressed, two
 * records, producer fields left at their "not idempotent" defaults.
 */
const GOLDEN_TWO_RECORDS = hex(
  '0000000000000000', // baseOffset 0
  '00000046', //         batchLength 70 = 82 - 12
  'ffffffff', //         partitionLeaderEpoch -1
  '02', //               magic 2
  '29d161f1', //         CRC-32C of bytes 21..81 (checked against a bitwise reference below)
  '0000', //             attributes: no codec, CreateTime, not transactional, not control
  '00000001', //         lastOffsetDelta 1
  '0000018bcfe56800', // baseTimestamp T0
  '0000018bcfe56805', // maxTimestamp T0 + 5
  'ffffffffffffffff', // producerId -1
  'ffff', //             producerEpoch -1
  'ffffffff', //         baseSequence -1
  '00000002', //         recordCount 2
  // record 0: key "k", value "v1", one header h="x", timestamp T0
  '1a', //   length 13 (zig-zag 26)
  '00', //   attributes
  '00', //   timestampDelta 0
  '00', //   offsetDelta 0
  '02 6b', //      keyLength 1, "k"
  '04 7631', //    valueLength 2, "v1"
  '02', //         headerCount 1
  '02 68', //      headerKeyLength 1, "h"
  '02 78', //      headerValueLength 1, "x"
  // record 1: null key, null value, no headers, timestamp T0 + 5
  '0c', //   length 6
  '00', //   attributes
  '0a', //   timestampDelta 5 (zig-zag 10)
  '02', //   offsetDelta 1
  '01', //   keyLength -1 (null)
  '01', //   valueLength -1 (null)
  '00', //   headerCount 0
)

/** Golden batch 2: an idempotent, transactional producer's batch, already stamped by a leader. */
const GOLDEN_IDEMPOTENT = hex(
  '0000000000000064', // baseOffset 100
  '0000003d', //         batchLength 61 = 73 - 12
  '00000007', //         partitionLeaderEpoch 7
  '02', //               magic 2
  'fcb6fe19', //         CRC-32C of bytes 21..72
  '0010', //             attributes: transactional (bit 4)
  '00000000', //         lastOffsetDelta 0
  '0000018bcfe56800', // baseTimestamp T0
  '0000018bcfe56800', // maxTimestamp T0
  '00000000000004d2', // producerId 1234
  '0005', //             producerEpoch 5
  '0000002a', //         baseSequence 42
  '00000001', //         recordCount 1
  '16', //               length 11
  '00 00 00', //         attributes, timestampDelta 0, offsetDelta 0
  '01', //               keyLength -1 (null)
  '0a 68656c6c6f', //    valueLength 5, "hello"
  '00', //               headerCount 0
)

describe('RecordBatch v2 golden bytes', () => {
  it('the hand-written CRCs are CRC-32C over attributes..end', () => {
    for (const golden of [GOLDEN_TWO_RECORDS, GOLDEN_IDEMPOTENT]) {
      expect(golden.readUInt32BE(17)).toBe(referenceCrc32c(golden.subarray(21)))
      expect(golden.readInt32BE(8)).toBe(golden.length - 12)
    }
  })

  it('encodes two records (key+value+header, null key+null value) exactly', () => {
    const batch = encodeRecordBatch([
      {
        key: Buffer.from('k'),
        value: Buffer.from('v1'),
        headers: [{ key: 'h', value: Buffer.from('x') }],
        timestamp: T0,
      },
      { key: null, value: null, timestamp: T0 + 5n },
    ])
    expect(batch.toString('hex')).toBe(GOLDEN_TWO_RECORDS.toString('hex'))
  })

  it('decodes the two-record golden batch', () => {
    const [batch, ...rest] = decodeRecordBatches(GOLDEN_TWO_RECORDS)
    expect(rest).toHaveLength(0)
    expect(batch!.header).toMatchObject({
      position: 0,
      sizeBytes: 82,
      baseOffset: 0n,
      partitionLeaderEpoch: -1,
      magic: 2,
      attributes: 0,
      lastOffsetDelta: 1,
      baseTimestamp: T0,
      maxTimestamp: T0 + 5n,
      producerId: -1n,
      producerEpoch: -1,
      baseSequence: -1,
      recordCount: 2,
    })
    expect(batch!.records).toEqual([
      {
        offset: 0n,
        timestamp: T0,
        key: Buffer.from('k'),
        value: Buffer.from('v1'),
        headers: [{ key: 'h', value: Buffer.from('x') }],
      },
      { offset: 1n, timestamp: T0 + 5n, key: null, value: null, headers: [] },
    ])
    // Keys and values are views into the input, not copies.
    expect(batch!.records[0]!.value!.buffer).toBe(GOLDEN_TWO_RECORDS.buffer)
  })

  it('encodes producer id, epoch, sequence, leader epoch, base offset and attributes exactly', () => {
    const batch = encodeRecordBatch([{ value: Buffer.from('hello') }], {
      baseOffset: 100n,
      partitionLeaderEpoch: 7,
      baseTimestamp: T0,
      producerId: 1234n,
      producerEpoch: 5,
      baseSequence: 42,
      isTransactional: true,
    })
    expect(batch.toString('hex')).toBe(GOLDEN_IDEMPOTENT.toString('hex'))
    const [decoded] = decodeRecordBatches(batch)
    expect(decoded!.header).toMatchObject({
      baseOffset: 100n,
      producerId: 1234n,
      producerEpoch: 5,
      baseSequence: 42,
      attributes: 0x10,
    })
    expect(decoded!.records).toEqual([
      { offset: 100n, timestamp: T0, key: null, value: Buffer.from('hello'), headers: [] },
    ])
  })

  it('sets the control and LogAppendTime bits; LogAppendTime records read maxTimestamp', () => {
    const batch = encodeRecordBatch(
      [
        { value: Buffer.from('a'), timestamp: T0 },
        { value: Buffer.from('b'), timestamp: T0 + 9n },
      ],
      { isControl: true, timestampType: 'LogAppendTime' },
    )
    expect(readBatchHeader(batch)!.attributes).toBe(0x20 | 0x08)
    const [decoded] = decodeRecordBatches(batch)
    expect(decoded!.records.map((r) => r.timestamp)).toEqual([T0 + 9n, T0 + 9n])
  })

  it('defaults the base timestamp to the first record, maxTimestamp to the largest, and accepts older records', () => {
    const batch = encodeRecordBatch([
      { value: null, timestamp: T0 },
      { value: null, timestamp: T0 - 1000n },
      { value: null, timestamp: T0 + 7n },
    ])
    const header = readBatchHeader(batch)!
    expect([header.baseTimestamp, header.maxTimestamp, header.lastOffsetDelta, header.recordCount]).toEqual([
      T0,
      T0 + 7n,
      2,
      3,
    ])
    expect(decodeRecordBatches(batch)[0]!.records.map((r) => r.timestamp)).toEqual([T0, T0 - 1000n, T0 + 7n])
    expect(validateBatches(batch)).toHaveLength(1)
  })

  it('uses Date.now() when no timestamp is given, and a header value may be null', () => {
    const before = BigInt(Date.now())
    const batch = encodeRecordBatch([
      { value: Buffer.alloc(0), key: Buffer.alloc(0), headers: [{ key: 'ü', value: null }] },
    ])
    const after = BigInt(Date.now())
    const [decoded] = decodeRecordBatches(batch)
    const ts = decoded!.header.baseTimestamp
    expect(ts >= before && ts <= after).toBe(true)
    expect(decoded!.records[0]).toEqual({
      offset: 0n,
      timestamp: ts,
      key: Buffer.alloc(0),
      value: Buffer.alloc(0),
      headers: [{ key: 'ü', value: null }],
    })
  })

  it('rejects bad input with INVALID_ARGUMENT instead of writing garbage', () => {
    expect(() => encodeRecordBatch([])).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }))
    expect(() => encodeRecordBatch([{ value: 'text' as unknown as Buffer }])).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    )
    expect(() => encodeRecordBatch([{ value: null }], { producerEpoch: 70000 })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    )
    expect(() => encodeRecordBatch([{ value: null }], { compression: 'brotli' as 'gzip' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    )
  })
})
