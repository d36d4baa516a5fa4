import { describe, expect, it } from 'vitest'
import * as m from './buffer-methods.js'

describe('buffer-methods', () => {
  it('reads what Buffer reads, at any position', () => {
    const buf = Buffer.from('80ff7f00010203fffefdfc8000000000000001', 'hex')
    for (let at = 0; at + 8 <= buf.length; at++) {
      expect(m.readInt8(buf, at)).toBe(buf.readInt8(at))
      expect(m.readInt16BE(buf, at)).toBe(buf.readInt16BE(at))
      expect(m.readInt32BE(buf, at)).toBe(buf.readInt32BE(at))
      expect(m.readUInt32BE(buf, at)).toBe(buf.readUInt32BE(at))
      expect(m.readBigInt64BE(buf, at)).toBe(buf.readBigInt64BE(at))
      expect(Object.is(m.readDoubleBE(buf, at), buf.readDoubleBE(at))).toBe(true)
    }
  })

  it('writes what Buffer writes and answers the position after it', () => {
    const cases: Array<[(b: Buffer, at: number) => number, (b: Buffer, at: number) => number]> = [
      [(b, at) => m.writeInt8(b, -2, at), (b, at) => b.writeInt8(-2, at)],
      [(b, at) => m.writeInt16BE(b, -300, at), (b, at) => b.writeInt16BE(-300, at)],
      [(b, at) => m.writeInt32BE(b, -70000, at), (b, at) => b.writeInt32BE(-70000, at)],
      [(b, at) => m.writeUInt32BE(b, 0xfedcba98, at), (b, at) => b.writeUInt32BE(0xfedcba98, at)],
      [(b, at) => m.writeBigInt64BE(b, -(2n ** 40n), at), (b, at) => b.writeBigInt64BE(-(2n ** 40n), at)],
      [(b, at) => m.writeDoubleBE(b, -1.5, at), (b, at) => b.writeDoubleBE(-1.5, at)],
    ]
    for (const [ours, buffers] of cases) {
      const a = Buffer.alloc(12)
      const b = Buffer.alloc(12)
      expect(ours(a, 3)).toBe(buffers(b, 3))
      expect(a).toEqual(b)
    }
  })

  it("throws Buffer's own errors out of range, and writes nothing", () => {
    const buf = Buffer.alloc(4)
    expect(() => m.readInt32BE(buf, 1)).toThrow(RangeError)
    expect(() => m.readBigInt64BE(buf, 0)).toThrow(RangeError)
    expect(() => m.writeInt16BE(buf, 40000, 0)).toThrow(RangeError)
    expect(() => m.writeInt32BE(buf, 1, 2)).toThrow(RangeError)
    expect(buf).toEqual(Buffer.alloc(4))
  })

  it('views, copies and encodes text as Buffer does', () => {
    const buf = Buffer.from('0123456789')
    const view = m.subarray(buf, 2, 5)
    expect(view.toString()).toBe('234')
    view[0] = 0x41 // a view, not a copy
    expect(buf.toString()).toBe('01A3456789')
    m.copyInto(buf, Uint8Array.of(0x78, 0x79), 8)
    expect(buf.toString()).toBe('01A34567xy')
    const out = Buffer.alloc(8)
    expect(m.writeUtf8(out, 'héllo', 1, 4)).toBe(out.write('héllo', 1, 4, 'utf8'))
    expect(out.subarray(1, 5)).toEqual(Buffer.from('héllo').subarray(0, 4))
  })
})
