/**
 * RecordBatch v2 codec hot paths (issue 4): encoding a producer batch, decoding a fetched one,
 * and the broker's per-request check (validateBatches: header + CRC, no record parsing).
 * One batch = 1,000 records of 100-byte values, no key, no headers (~108 KB), the shape of
 * scenario 1. Throughput in records/s = hz x 1,000.
 */
import { bench, describe } from 'vitest'
import { decodeRecordBatches, encodeRecordBatch, validateBatches, type RecordInput } from '../src/index.js'

const RECORDS = 1000
const value = Buffer.alloc(100, 0x61)
const ts = BigInt(Date.now())
const records: RecordInput[] = Array.from({ length: RECORDS }, () => ({ value, headers: [], timestamp: ts }))
const keyed: RecordInput[] = Array.from({ length: RECORDS }, (_, i) => ({
  key: Buffer.from(`key-${i % 100}`.padEnd(8, '.')),
  value,
  headers: [],
  timestamp: ts,
}))
// What the producer hands the encoder in scenario 1: one 256 KiB batch filled by ~3 send() calls
// (each call's records share one timestamp object), null keys, headers undefined.
const producerBatch: RecordInput[] = Array.from({ length: 2300 }, (_, i) => ({
  key: null,
  value,
  timestamp: ts + BigInt(Math.floor(i / 1000)),
}))
const batch = encodeRecordBatch(records)
// A fetch response: 10 batches back to back (~1 MB).
const fetched = Buffer.concat(Array.from({ length: 10 }, () => batch))

describe('encode 1,000 x 100 B', () => {
  bench('encodeRecordBatch, null key', () => {
    encodeRecordBatch(records)
  })
  bench('encodeRecordBatch, 8-byte key', () => {
    encodeRecordBatch(keyed)
  })
})

describe('encode a producer batch: 2,300 x 100 B from 3 send() calls', () => {
  bench('encodeRecordBatch, null key, 3 timestamps', () => {
    encodeRecordBatch(producerBatch)
  })
})

describe('decode 1,000 x 100 B', () => {
  bench('decodeRecordBatches (CRC verified)', () => {
    decodeRecordBatches(batch)
  })
  bench('decodeRecordBatches (verifyCrc false)', () => {
    decodeRecordBatches(batch, { verifyCrc: false })
  })
})

describe('broker check of a ~1 MB produce/fetch payload (10 batches)', () => {
  bench('validateBatches', () => {
    validateBatches(fetched)
  })
})
