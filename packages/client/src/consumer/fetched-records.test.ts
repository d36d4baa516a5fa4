import { CONTROL_MASK, OFF_ATTRIBUTES, encodeRecordBatch, type RecordInput } from '@sluice/protocol'
import { describe, expect, it } from 'vitest'
import { scanFetched, takeBuffered } from './fetched-records.js'
import type { FetchedRecords } from './subscription.js'
import { SubscriptionState, type PartitionState } from './subscription.js'

function batch(baseOffset: number, values: string[], options: { control?: boolean } = {}): Buffer {
  const records: RecordInput[] = values.map((v, i) => ({
    value: Buffer.from(v),
    timestamp: BigInt(1000 + baseOffset + i),
  }))
  const b = encodeRecordBatch(records, { baseOffset: BigInt(baseOffset), isControl: options.control === true })
  expect((b.readInt16BE(OFF_ATTRIBUTES) & CONTROL_MASK) !== 0).toBe(options.control === true)
  return b
}

/** A chunk as the fetcher keeps it: the records with their batch headers, read once. */
function chunk(records: Buffer, fromOffset: bigint, highWatermark: bigint): FetchedRecords {
  return { records, batches: scanFetched(records).batches, taken: 0, fromOffset, highWatermark }
}

/** scanFetched without the headers, which the test checks by their base offsets. */
function scan(records: Buffer): { completeBytes: number; nextOffset: bigint | undefined; baseOffsets: bigint[] } {
  const { batches, ...rest } = scanFetched(records)
  return { ...rest, baseOffsets: batches.map((b) => b.baseOffset) }
}

function partition(): PartitionState {
  const subs = new SubscriptionState()
  const s = subs.add('t', 0)
  subs.seek(s, 0n)
  return s
}

describe('fetched records', () => {
  it('scans whole batches only and finds the next fetch offset', () => {
    const a = batch(0, ['a', 'b', 'c'])
    const b = batch(3, ['d', 'e'])
    expect(scan(Buffer.concat([a, b]))).toEqual({
      completeBytes: a.length + b.length,
      nextOffset: 5n,
      baseOffsets: [0n, 3n],
    })
    // A response cut in the middle of its second batch: only the first counts.
    expect(scan(Buffer.concat([a, b.subarray(0, b.length - 1)]))).toEqual({
      completeBytes: a.length,
      nextOffset: 3n,
      baseOffsets: [0n],
    })
    expect(scan(b.subarray(0, 20))).toEqual({ completeBytes: 0, nextOffset: undefined, baseOffsets: [] })
    const badMagic = Buffer.from(a)
    badMagic.writeInt8(1, 16)
    expect(() => scanFetched(badMagic)).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE' }))
  })

  it('decodes at delivery, one response at a time, skipping records below the fetch offset and control batches', () => {
    const s = partition()
    const first = Buffer.concat([batch(0, ['a', 'b', 'c']), batch(3, ['ctl'], { control: true })])
    s.fetched.push(chunk(first, 1n, 4n))
    s.fetched.push(chunk(batch(3, ['ctl'], { control: true }), 4n, 6n)) // nothing deliverable
    s.fetched.push(chunk(batch(4, ['e', 'f']), 4n, 6n))
    const one = takeBuffered(s)!
    expect(one.messages.map((m) => [m.offset, m.value!.toString()])).toEqual([
      [1n, 'b'],
      [2n, 'c'],
    ])
    expect(one.messages[0]).toMatchObject({ topic: 't', partition: 0, timestamp: 1001n, key: null, headers: [] })
    expect(one.highWatermark).toBe(4n)
    const two = takeBuffered(s)!
    expect(two.messages.map((m) => m.offset)).toEqual([4n, 5n])
    expect(two.highWatermark).toBe(6n)
    expect(takeBuffered(s)).toBeUndefined()
  })

  it('walks at delivery the batch headers read when the response arrived, without framing the batches again', () => {
    const s = partition()
    const records = Buffer.concat([batch(0, ['a', 'b']), batch(2, ['c'])])
    const kept = chunk(records, 0n, 3n)
    // batchLength is outside the CRC: a second framing pass would now reject the first batch.
    records.writeInt32BE(10, 8)
    s.fetched.push(kept)
    expect(takeBuffered(s)!.messages.map((m) => m.value!.toString())).toEqual(['a', 'b', 'c'])
    expect(s.error).toBeUndefined()
  })

  it('after a timestamp seek skips older leading records and counts them consumed', () => {
    const s = partition()
    s.skipBeforeTimestamp = 1012n // batch(10, ...) stamps 1010, 1011, 1012, 1013
    s.fetched.push(chunk(batch(10, ['a', 'b', 'c', 'd']), 10n, 14n))
    expect(takeBuffered(s)!.messages.map((m) => [m.offset, m.timestamp])).toEqual([
      [12n, 1012n],
      [13n, 1013n],
    ])
    expect(s.position).toBe(12n)
    expect(s.skipBeforeTimestamp).toBeUndefined()
  })

  it('delivers put-back messages first', () => {
    const s = partition()
    s.fetched.push(chunk(batch(2, ['c']), 2n, 3n))
    s.buffered = [{ topic: 't', partition: 0, offset: 1n, timestamp: 0n, key: null, value: null, headers: [] }]
    expect(takeBuffered(s)!.messages.map((m) => m.offset)).toEqual([1n])
    expect(takeBuffered(s)!.messages.map((m) => m.offset)).toEqual([2n])
  })

  it('stops the partition with CORRUPT_MESSAGE when a buffered batch fails its CRC', () => {
    const s = partition()
    const bad = batch(0, ['a', 'b'])
    bad[bad.length - 1]! ^= 0xff // flip a byte of the last record: the CRC no longer matches
    s.fetched.push(chunk(bad, 0n, 2n))
    s.fetched.push(chunk(batch(2, ['c']), 2n, 3n))
    expect(takeBuffered(s)).toBeUndefined()
    expect(s.error?.code).toBe('CORRUPT_MESSAGE')
    expect(s.stopped).toBe(true)
    expect(s.fetched).toEqual([])
  })
})
