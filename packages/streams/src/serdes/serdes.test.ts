import { describe, expect, it } from 'vitest'
import { StreamsError } from '../errors.js'
import { Serdes } from './serdes.js'

function serdeError(fn: () => unknown): StreamsError {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(StreamsError)
    expect((e as StreamsError).code).toBe('SERDE')
    return e as StreamsError
  }
  throw new Error('expected a SERDE error')
}

describe('Serdes', () => {
  it('round-trips strings as UTF-8, and rejects invalid UTF-8 naming the serde and topic', () => {
    const s = Serdes.string()
    for (const v of ['', 'hello', 'grüße ✓ 𝄞']) expect(s.deserialize(s.serialize(v, 't'), 't')).toBe(v)
    expect(s.serialize('é', 't')).toEqual(Buffer.from([0xc3, 0xa9]))
    const e = serdeError(() => s.deserialize(Buffer.from([0xff, 0xfe]), 'words'))
    expect(e.message).toContain("'string'")
    expect(e.message).toContain("'words'")
  })

  it('round-trips JSON and turns unparsable bytes into SERDE', () => {
    const s = Serdes.json<{ a: number; b: string[] }>()
    const v = { a: 1, b: ['x', 'y'] }
    expect(s.deserialize(s.serialize(v, 't'), 't')).toEqual(v)
    serdeError(() => s.deserialize(Buffer.from('{not json'), 't'))
    serdeError(() => Serdes.json<unknown>().serialize(undefined, 't'))
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    serdeError(() => Serdes.json<unknown>().serialize(cyclic, 't'))
  })

  it('passes bytes through as they are', () => {
    const b = Buffer.from([1, 2, 3])
    expect(Serdes.bytes().serialize(b, 't')).toBe(b)
    expect(Serdes.bytes().deserialize(b, 't')).toBe(b)
    serdeError(() => Serdes.bytes().serialize('x' as unknown as Buffer, 't'))
  })

  it('writes int32, int64 and double big-endian, as Kafka does', () => {
    expect(Serdes.int32().serialize(1, 't')).toEqual(Buffer.from([0, 0, 0, 1]))
    expect(Serdes.int32().deserialize(Serdes.int32().serialize(-5, 't'), 't')).toBe(-5)
    expect(Serdes.int64().serialize(258n, 't')).toEqual(Buffer.from([0, 0, 0, 0, 0, 0, 1, 2]))
    const big = 2n ** 62n + 7n
    expect(Serdes.int64().deserialize(Serdes.int64().serialize(big, 't'), 't')).toBe(big)
    expect(Serdes.double().deserialize(Serdes.double().serialize(3.25, 't'), 't')).toBe(3.25)
    expect(Serdes.double().serialize(1, 't')).toEqual(Buffer.from([0x3f, 0xf0, 0, 0, 0, 0, 0, 0]))
    expect(Serdes.long().serialize(258, 't')).toEqual(Serdes.int64().serialize(258n, 't'))
    expect(Serdes.long().deserialize(Serdes.long().serialize(-42, 't'), 't')).toBe(-42)
  })

  it('rejects numbers out of range and input of the wrong length', () => {
    serdeError(() => Serdes.int32().serialize(2 ** 31, 't'))
    serdeError(() => Serdes.int32().serialize(1.5, 't'))
    serdeError(() => Serdes.int32().deserialize(Buffer.alloc(3), 't'))
    serdeError(() => Serdes.int64().serialize(2n ** 63n, 't'))
    serdeError(() => Serdes.int64().serialize(1 as unknown as bigint, 't'))
    serdeError(() => Serdes.int64().deserialize(Buffer.alloc(4), 't'))
    serdeError(() => Serdes.double().deserialize(Buffer.alloc(9), 't'))
    serdeError(() => Serdes.long().serialize(2 ** 60, 't'))
    serdeError(() => Serdes.long().deserialize(Serdes.int64().serialize(2n ** 60n, 't'), 't'))
  })

  it('wraps what a user-defined serde throws as SERDE, keeping the cause', () => {
    const upper = Serdes.from<string>(
      'upper',
      (v) => Buffer.from(v.toUpperCase()),
      (b) => {
        if (b.length === 0) throw new Error('empty')
        return b.toString()
      },
    )
    expect(upper.name).toBe('upper')
    expect(upper.deserialize(upper.serialize('abc', 't'), 't')).toBe('ABC')
    const e = serdeError(() => upper.deserialize(Buffer.alloc(0), 'in'))
    expect(e.message).toContain("'upper'")
    expect((e.cause as Error).message).toBe('empty')
  })
})
