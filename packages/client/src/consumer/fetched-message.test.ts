import { inspect } from 'node:util'
import { encodeRecordBatch, type CompressionType, type RecordInput } from '@sluice/protocol'
import { describe, expect, it } from 'vitest'
import type { ConsumerMessage } from './consumer-types.js'
import { DELIVERY_SLICE_BYTES, fetchedBytes, scanFetched, takeBuffered } from './fetched-records.js'
import { SubscriptionState, type PartitionState } from './subscription.js'

const T0 = 1700000000000n

function partition(): PartitionState {
  const subs = new SubscriptionState()
  const s = subs.add('orders', 3)
  subs.seek(s, 0n)
  return s
}

function push(s: PartitionState, records: Buffer, fromOffset = 0n): void {
  s.fetched.push({ records, batches: scanFetched(records).batches, taken: 0, fromOffset, highWatermark: 1n << 40n })
}

/** Every message the partition's buffers hold, slice by slice. */
function drain(s: PartitionState): ConsumerMessage[][] {
  const slices: ConsumerMessage[][] = []
  for (let t = takeBuffered(s); t !== undefined; t = takeBuffered(s)) slices.push(t.messages)
  return slices
}

const mixed: RecordInput[] = [
  { key: Buffer.from('k1'), value: Buffer.from('v1'), timestamp: T0 },
  { key: null, value: null, timestamp: T0 + 5n },
  {
    key: Buffer.alloc(0),
    value: Buffer.alloc(0),
    headers: [
      { key: 'h', value: Buffer.from([1, 2]) },
      { key: 'ünï', value: null },
    ],
    timestamp: T0 - 3n,
  },
  { value: Buffer.alloc(70_000, 9), headers: [{ key: 'x', value: Buffer.alloc(0) }], timestamp: -(2n ** 63n) },
]

describe('consumer messages (lazy views of the fetched records)', () => {
  it.each<CompressionType>(['none', 'gzip', 'snappy', 'lz4', 'zstd'])(
    'give every field of every record (%s): keys, values, nulls, headers, offsets, timestamps',
    (compression) => {
      const s = partition()
      push(s, encodeRecordBatch(mixed, { compression, baseOffset: 7n }))
      const [messages] = drain(s)
      expect(messages).toHaveLength(4)
      messages!.forEach((m, i) => {
        const r = mixed[i]!
        expect(m.topic).toBe('orders')
        expect(m.partition).toBe(3)
        expect(m.offset).toBe(7n + BigInt(i))
        expect(m.timestamp).toBe(r.timestamp)
        expect(m.key).toEqual(r.key ?? null)
        expect(m.value).toEqual(r.value)
        expect(m.headers).toEqual(r.headers ?? [])
      })
    },
  )

  it('decode a field once: the same Buffer and headers array on every read', () => {
    const s = partition()
    push(s, encodeRecordBatch(mixed))
    const m = drain(s)[0]![2]!
    expect(m.value).toBe(m.value)
    expect(m.key).toBe(m.key)
    expect(m.headers).toBe(m.headers)
    expect(m.offset).toBe(m.offset) // bigints compare by value
  })

  it('are read-only, and show their fields to util.inspect', () => {
    const s = partition()
    push(s, encodeRecordBatch([{ key: Buffer.from('k'), value: Buffer.from('v'), timestamp: T0 }]))
    const m = drain(s)[0]![0]!
    expect(() => {
      ;(m as { value: unknown }).value = null
    }).toThrow(TypeError)
    expect(m.value!.toString()).toBe('v')
    const shown = inspect(m)
    for (const part of ["topic: 'orders'", 'partition: 3', 'offset: 0n', `timestamp: ${T0}n`, 'headers: []']) {
      expect(shown).toContain(part)
    }
  })

  it('hand out offsets at and beyond 2^53 exactly', () => {
    const s = partition()
    const base = 2n ** 53n - 1n
    push(s, encodeRecordBatch([{ value: null }, { value: null }], { baseOffset: base }), base)
    expect(drain(s)[0]!.map((m) => m.offset)).toEqual([base, base + 1n])
  })

  it('come in order, one delivered batch per ~256 KiB of record batches, and free buffer space as they go', () => {
    const s = partition()
    const batches: Buffer[] = []
    for (let b = 0; b < 40; b++) {
      const input = Array.from({ length: 250 }, (_, i) => ({ value: Buffer.alloc(100, b), timestamp: T0 + BigInt(i) }))
      batches.push(encodeRecordBatch(input, { baseOffset: BigInt(b * 250) }))
    }
    const records = Buffer.concat(batches) // ~1 MiB: four or five slices
    push(s, records)
    expect(fetchedBytes(s)).toBe(records.length)
    const first = takeBuffered(s)!.messages
    expect(fetchedBytes(s)).toBeLessThan(records.length)
    expect(fetchedBytes(s)).toBeGreaterThanOrEqual(records.length - DELIVERY_SLICE_BYTES - batches[0]!.length)
    const slices = [first, ...drain(s)]
    expect(slices.length).toBeGreaterThan(3)
    expect(fetchedBytes(s)).toBe(0)
    expect(s.fetched).toEqual([])
    const all = slices.flat()
    expect(all.map((m) => m.offset)).toEqual(Array.from({ length: 10_000 }, (_, i) => BigInt(i)))
    expect(all.every((m, i) => m.value!.length === 100 && m.value![0] === Math.floor(i / 250))).toBe(true)
  })

  it('a corrupt batch stops the partition with CORRUPT_MESSAGE and none of its records is handed out', () => {
    const s = partition()
    const good = encodeRecordBatch([{ value: Buffer.from('a') }], { baseOffset: 0n })
    const bad = encodeRecordBatch([{ value: Buffer.from('b') }, { value: Buffer.from('c') }], { baseOffset: 1n })
    bad[bad.length - 1]! ^= 0xff
    push(s, Buffer.concat([good, bad]))
    expect(takeBuffered(s)).toBeUndefined() // good and bad are one slice: the slice is dropped
    expect(s.error?.code).toBe('CORRUPT_MESSAGE')
    expect(s.stopped).toBe(true)
    expect(s.fetched).toEqual([])
  })
})
