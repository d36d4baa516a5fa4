import { describe, expect, it } from 'vitest'
import { KafkaReader } from './kafka-reader.js'
import { KafkaWireError } from './kafka-wire-error.js'
import { KafkaWriter } from './kafka-writer.js'
import { readInt32Item, writeInt32Item } from './message-runtime.js'

const hex = (b: Buffer): string => b.toString('hex')
const written = (f: (w: KafkaWriter) => void): Buffer => {
  const w = new KafkaWriter(16)
  f(w)
  return w.toBuffer()
}
const reader = (b: Buffer): KafkaReader => new KafkaReader(b)

/** Writes v, reads it back, and checks the reader consumed exactly what the writer wrote. */
function roundTrip<T>(write: (w: KafkaWriter, v: T) => void, read: (r: KafkaReader) => T, v: T): T {
  const buf = written((w) => write(w, v))
  const r = reader(buf)
  const out = read(r)
  expect(r.remaining).toBe(0)
  return out
}

describe('Kafka primitives round trip', () => {
  it.each([0, -1, 1, 127, -128])('int8 %d', (v) => {
    expect(
      roundTrip(
        (w, x) => w.int8(x),
        (r) => r.int8(),
        v,
      ),
    ).toBe(v)
  })
  it.each([0, -1, 32767, -32768])('int16 %d', (v) => {
    expect(
      roundTrip(
        (w, x) => w.int16(x),
        (r) => r.int16(),
        v,
      ),
    ).toBe(v)
  })
  it.each([0, -1, 2 ** 31 - 1, -(2 ** 31)])('int32 %d', (v) => {
    expect(
      roundTrip(
        (w, x) => w.int32(x),
        (r) => r.int32(),
        v,
      ),
    ).toBe(v)
  })
  it.each([0, 1, 2 ** 32 - 1])('uint32 %d', (v) => {
    expect(
      roundTrip(
        (w, x) => w.uint32(x),
        (r) => r.uint32(),
        v,
      ),
    ).toBe(v)
  })
  it.each([0n, -1n, 2n ** 63n - 1n, -(2n ** 63n)])('int64 %s', (v) => {
    expect(
      roundTrip(
        (w, x) => w.int64(x),
        (r) => r.int64(),
        v,
      ),
    ).toBe(v)
  })
  it.each([0, -0.5, Math.PI, Number.MAX_VALUE, Number.NEGATIVE_INFINITY])('float64 %d', (v) => {
    expect(
      roundTrip(
        (w, x) => w.float64(x),
        (r) => r.float64(),
        v,
      ),
    ).toBe(v)
  })
  it('boolean', () => {
    expect(
      roundTrip(
        (w, x) => w.boolean(x),
        (r) => r.boolean(),
        true,
      ),
    ).toBe(true)
    expect(
      roundTrip(
        (w, x) => w.boolean(x),
        (r) => r.boolean(),
        false,
      ),
    ).toBe(false)
  })
  it.each([0, 1, 127, 128, 300, 16383, 16384, 2 ** 31 - 1, 2 ** 32 - 1])('uvarint %d', (v) => {
    expect(
      roundTrip(
        (w, x) => w.uvarint(x),
        (r) => r.uvarint(),
        v,
      ),
    ).toBe(v)
  })
  it.each([0, -1, 1, -64, 64, 2 ** 31 - 1, -(2 ** 31)])('varint %d', (v) => {
    expect(
      roundTrip(
        (w, x) => w.varint(x),
        (r) => r.varint(),
        v,
      ),
    ).toBe(v)
  })
  it.each([0n, -1n, 1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 31n])('varlong %s', (v) => {
    expect(
      roundTrip(
        (w, x) => w.varlong(x),
        (r) => r.varlong(),
        v,
      ),
    ).toBe(v)
  })
  it('uuid', () => {
    const id: Buffer = Buffer.from('00112233445566778899aabbccddeeff', 'hex')
    expect(
      hex(
        roundTrip(
          (w, x) => w.uuid(x),
          (r) => r.uuid(),
          id,
        ),
      ),
    ).toBe(hex(id))
  })
  it.each(['', 'abc', 'héllo wörld ✓ 日本 🎉', null])('strings %j (classic and compact)', (v) => {
    expect(
      roundTrip(
        (w, x) => w.string(x),
        (r) => r.string(),
        v,
      ),
    ).toBe(v)
    expect(
      roundTrip(
        (w, x) => w.compactString(x),
        (r) => r.compactString(),
        v,
      ),
    ).toBe(v)
  })
  it.each([Buffer.alloc(0), Buffer.from([1, 2, 3]), Buffer.alloc(5000, 7), null])(
    'bytes (classic and compact)',
    (v: Buffer | null) => {
      const classic = roundTrip(
        (w, x) => w.bytes(x),
        (r) => r.bytes(),
        v,
      )
      const compact = roundTrip(
        (w, x) => w.compactBytes(x),
        (r) => r.compactBytes(),
        v,
      )
      expect(classic === null ? null : hex(classic)).toBe(v === null ? null : hex(v))
      expect(compact === null ? null : hex(compact)).toBe(v === null ? null : hex(v))
    },
  )
  it.each([[[]], [[1, -2, 3]], [null]])('arrays %j (classic and compact)', (v: number[] | null) => {
    expect(
      roundTrip(
        (w, x) => w.array(x, writeInt32Item, 0),
        (r) => r.array(readInt32Item, 0),
        v,
      ),
    ).toEqual(v)
    expect(
      roundTrip(
        (w, x) => w.compactArray(x, writeInt32Item, 0),
        (r) => r.compactArray(readInt32Item, 0),
        v,
      ),
    ).toEqual(v)
  })
  it('tagged fields: written in increasing tag order, read back as views, or skipped', () => {
    const fields = new Map<number, Buffer>([
      [300, Buffer.from('late')],
      [0, Buffer.from('zero')],
      [5, Buffer.alloc(0)],
    ])
    const buf = written((w) => w.taggedFields(fields).int8(9))
    const r = reader(buf)
    const back = r.taggedFields(true)
    expect([...back.keys()]).toEqual([0, 5, 300])
    expect(back.get(300)!.toString()).toBe('late')
    expect(back.get(300)!.buffer).toBe(buf.buffer)
    expect(r.int8()).toBe(9)
    const skip = reader(buf)
    expect(skip.taggedFields()).toBeUndefined()
    expect(skip.int8()).toBe(9)
    expect(hex(written((w) => w.taggedFields()))).toBe('00')
  })
  it('raw bytes: long runs are passed through uncopied, short ones copied in', () => {
    const batch = Buffer.alloc(4096, 1)
    const w = new KafkaWriter().int16(7).raw(batch).int8(2)
    const chunks = w.toChunks()
    expect(chunks).toHaveLength(3)
    expect(chunks[1]).toBe(batch)
    expect(w.length).toBe(2 + 4096 + 1)
    const frame = Buffer.concat(w.toFrame())
    expect(frame.readInt32BE(0)).toBe(4099)
    const r = new KafkaReader(frame, 4)
    expect(r.int16()).toBe(7)
    const view = r.raw(4096)
    expect(view.buffer).toBe(frame.buffer)
    expect(r.int8()).toBe(2)
  })
  it('a forFrame writer frames in place: one buffer when small, the same bytes as a plain writer', () => {
    const small = (w: KafkaWriter) => w.int16(7).compactString('topic').int64(42n)
    const framed = small(KafkaWriter.forFrame(8)) // grows past its initial size, prefix kept
    const frame = framed.toFrame()
    expect(frame).toHaveLength(1)
    expect(framed.length).toBe(2 + 6 + 8)
    expect(frame[0]!.equals(Buffer.concat(small(new KafkaWriter()).toFrame()))).toBe(true)
    // With a pass-through chunk the prefix leads the first chunk; the bytes still match.
    const big = (w: KafkaWriter) => w.int8(1).raw(Buffer.alloc(4096, 3)).int32(5)
    const chunks = big(KafkaWriter.forFrame()).toFrame()
    expect(chunks).toHaveLength(3)
    expect(Buffer.concat(chunks).equals(Buffer.concat(big(new KafkaWriter()).toFrame()))).toBe(true)
    // A pass-through chunk first of all: the reserved bytes alone lead.
    const first = KafkaWriter.forFrame().raw(Buffer.alloc(2048, 4))
    expect(Buffer.concat(first.toFrame()).readInt32BE(0)).toBe(2048)
  })
  it('bytes come back as views of the input, not copies', () => {
    const buf = written((w) => w.bytes(Buffer.from('payload')))
    expect(reader(buf).bytes()!.buffer).toBe(buf.buffer)
  })
  it('the writer grows past its initial size', () => {
    const w = new KafkaWriter(16)
    for (let i = 0; i < 1000; i++) w.int32(i)
    const r = reader(w.toBuffer())
    for (let i = 0; i < 1000; i++) expect(r.int32()).toBe(i)
  })
})

describe('golden bytes (hand-computed)', () => {
  it('uvarint 300 = ac 02 (300 = 0b10_0101100: low 7 bits 0x2c | 0x80, then 0x02)', () => {
    expect(hex(written((w) => w.uvarint(300)))).toBe('ac02')
  })
  it('uvarint 2^31-1 = ff ff ff ff 07; 2^32-1 = ff ff ff ff 0f', () => {
    expect(hex(written((w) => w.uvarint(2 ** 31 - 1)))).toBe('ffffffff07')
    expect(hex(written((w) => w.uvarint(2 ** 32 - 1)))).toBe('ffffffff0f')
  })
  it('zig-zag: 0 = 00, -1 = 01, 1 = 02, -64 = 7f, 64 = 80 01', () => {
    expect(hex(written((w) => w.varint(0).varint(-1).varint(1).varint(-64).varint(64)))).toBe('000102' + '7f' + '8001')
    expect(hex(written((w) => w.varlong(-1n)))).toBe('01')
    expect(hex(written((w) => w.varlong(-(2n ** 63n))))).toBe('ffffffffffffffffff01')
  })
  it("compact string 'abc' = 04 61 62 63; compact null = 00; classic null = ff ff", () => {
    expect(hex(written((w) => w.compactString('abc')))).toBe('04616263')
    expect(hex(written((w) => w.compactString(null)))).toBe('00')
    expect(hex(written((w) => w.string(null)))).toBe('ffff')
    expect(hex(written((w) => w.string('')))).toBe('0000')
    expect(hex(written((w) => w.bytes(null)))).toBe('ffffffff')
    expect(hex(written((w) => w.array(null, writeInt32Item, 0)))).toBe('ffffffff')
    expect(hex(written((w) => w.compactArray([], writeInt32Item, 0)))).toBe('01')
  })
  it('multi-byte UTF-8 lengths count bytes, not characters', () => {
    // 'é' is c3 a9: two bytes, so the compact length is 3.
    expect(hex(written((w) => w.compactString('é')))).toBe('03c3a9')
    expect(hex(written((w) => w.string('é')))).toBe('0002c3a9')
  })
})

/** Every way a wire read can fail must be the typed error, not a RangeError. */
function expectWireError(f: () => unknown): KafkaWireError {
  try {
    f()
  } catch (e) {
    expect(e).toBeInstanceOf(KafkaWireError)
    expect((e as KafkaWireError).code).toBe('INVALID_REQUEST')
    return e as KafkaWireError
  }
  throw new Error('expected a KafkaWireError')
}

describe('hostile input', () => {
  const b = (s: string): Buffer => Buffer.from(s, 'hex')
  it('reads past the end throw with the position', () => {
    expect(expectWireError(() => new KafkaReader(b('0001'), 1).int16()).position).toBe(1)
    expectWireError(() => reader(b('')).int8())
    expectWireError(() => reader(b('000000')).int32())
    expectWireError(() => reader(b('00000000000000')).int64())
    expectWireError(() => reader(b('00')).uuid())
  })
  it('a start offset outside the buffer is rejected', () => {
    expectWireError(() => new KafkaReader(b('00'), 2))
    expectWireError(() => new KafkaReader(b('00'), -1))
    expect(new KafkaReader(b('00'), 1).remaining).toBe(0)
  })
  it('lone surrogates are written as the 3-byte replacement character, with a matching length', () => {
    const buf = written((w) => w.string('\ud800'))
    expect(buf.toString('hex')).toBe('0003efbfbd')
    expect(reader(buf).string()).toBe('\ufffd')
  })
  it('negative lengths other than -1 are rejected', () => {
    expectWireError(() => reader(b('fffe')).string())
    expectWireError(() => reader(b('fffffffe')).bytes())
    expectWireError(() => reader(b('80000000')).array((r) => r.int8(), 0))
  })
  it('lengths and counts above the remaining bytes are rejected before anything is allocated', () => {
    expectWireError(() => reader(b('7fff61')).string())
    expectWireError(() => reader(b('7fffffff00')).bytes())
    expectWireError(() => reader(b('7fffffff')).array((r) => r.int8(), 0))
    expectWireError(() => reader(b('ffffffff0f')).compactArray((r) => r.int8(), 0))
    expectWireError(() => reader(b('ffffffff0f')).compactString())
    expectWireError(() => reader(b('05616263')).compactBytes())
    expectWireError(() => reader(b('ffffffff0f')).taggedFields())
    expectWireError(() => reader(b('01007f')).taggedFields())
    expectWireError(() => reader(b('02')).raw(3))
  })
  it('over-long and overflowing varints are rejected', () => {
    expectWireError(() => reader(b('ffffffff10')).uvarint())
    expectWireError(() => reader(b('ffffffffff01')).uvarint())
    expectWireError(() => reader(b('ffffffffff01')).varint())
    expectWireError(() => reader(b('ffffffffffffffffff02')).varlong())
    expectWireError(() => reader(b('ffffffffffffffffffff01')).varlong())
    expectWireError(() => reader(b('80')).uvarint())
    expectWireError(() => reader(b('8080')).varlong())
  })
  it('tagged fields out of order or repeated are rejected', () => {
    expectWireError(() => reader(b('02' + '0500' + '0500')).taggedFields())
    expectWireError(() => reader(b('02' + '0500' + '0100')).taggedFields())
  })
  it('a struct truncated at every byte position throws the typed error', () => {
    const buf = written((w) =>
      w
        .int16(18)
        .string('kcat')
        .compactString('héllo')
        .uvarint(300)
        .varlong(-12345678901n)
        .compactArray([1, 2], writeInt32Item, 0)
        .bytes(Buffer.from('xyz'))
        .uuid(Buffer.alloc(16, 3))
        .taggedFields(new Map([[1, Buffer.from('t')]])),
    )
    const readAll = (r: KafkaReader): void => {
      r.int16()
      r.string()
      r.compactString()
      r.uvarint()
      r.varlong()
      r.compactArray(readInt32Item, 0)
      r.bytes()
      r.uuid()
      r.taggedFields(true)
    }
    readAll(reader(buf))
    for (let n = 0; n < buf.length; n++) expectWireError(() => readAll(reader(buf.subarray(0, n))))
  })
  it('the writer refuses values it cannot encode', () => {
    expect(() => new KafkaWriter().uvarint(-1)).toThrow(/out of range/)
    expect(() => new KafkaWriter().uvarint(2 ** 32)).toThrow(/out of range/)
    expect(() => new KafkaWriter().varint(2 ** 31)).toThrow(/out of int32 range/)
    expect(() => new KafkaWriter().uuid(Buffer.alloc(15))).toThrow(/16 bytes/)
  })
})
