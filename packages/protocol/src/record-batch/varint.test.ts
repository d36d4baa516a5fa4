import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { crc32c } from '../crc32c.js'
import { SluiceError } from '../errors.js'
import { referenceCrc32c } from '../__fixtures__/reference-checksums.js'
import {
  VarintReader,
  varintSize,
  varlongSizeBigInt,
  varlongSizeNumber,
  writeVarint,
  writeVarlongBigInt,
  writeVarlongNumber,
} from './varint.js'

function encodeVarint(n: number): string {
  const buf = Buffer.alloc(5)
  const end = writeVarint(buf, 0, n)
  expect(end).toBe(varintSize(n))
  return buf.subarray(0, end).toString('hex')
}

function encodeVarlong(n: bigint): string {
  const buf = Buffer.alloc(10)
  const end = writeVarlongBigInt(buf, 0, n)
  expect(end).toBe(varlongSizeBigInt(n))
  return buf.subarray(0, end).toString('hex')
}

function reader(hexBytes: string): VarintReader {
  const buf = Buffer.from(hexBytes, 'hex')
  return new VarintReader(buf, 0, buf.length)
}

describe('crc32c', () => {
  it('has the standard check value', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283)
    expect(referenceCrc32c(Buffer.from('123456789'))).toBe(0xe3069283)
  })
})

describe('zig-zag varint (Kafka ByteUtils.writeVarint)', () => {
  const cases: Array<[number, string]> = [
    [0, '00'],
    [-1, '01'],
    [1, '02'],
    [63, '7e'],
    [-64, '7f'],
    [64, '8001'],
    [300, 'd804'],
    [2147483647, 'feffffff0f'],
    [-2147483648, 'ffffffff0f'],
  ]
  it.each(cases)('%d encodes as %s and decodes back', (n, expected) => {
    expect(encodeVarint(n)).toBe(expected)
    const r = reader(expected)
    expect(r.readVarint()).toBe(n)
    expect(r.pos).toBe(expected.length / 2)
  })

  it('rejects a sixth continuation byte and a varint cut short', () => {
    expect(() => reader('ffffffffff01').readVarint()).toThrow(SluiceError)
    expect(() => reader('ff').readVarint()).toThrow(/past the end/)
  })

  it('round-trips every int32', () => {
    fc.assert(
      fc.property(fc.integer({ min: -2147483648, max: 2147483647 }), (n) => {
        const buf = Buffer.alloc(5)
        const end = writeVarint(buf, 0, n)
        const r = new VarintReader(buf, 0, end)
        return r.readVarint() === n && r.pos === end
      }),
    )
  })
})

describe('zig-zag varlong (Kafka ByteUtils.writeVarlong)', () => {
  const cases: Array<[bigint, string]> = [
    [0n, '00'],
    [-1n, '01'],
    [1n, '02'],
    [300n, 'd804'],
    // A millisecond timestamp: 1700000000000 → zig-zag 3400000000000 = 0x3179_FCAD_000.
    [1700000000000n, '80a0abfef962'],
    // 2^52 → zig-zag 2^53: seven empty groups of 7 bits, then 2^(53-49) = 0x10.
    [2n ** 52n, '8080808080808010'],
    [-(2n ** 60n), 'ffffffffffffffff1f'],
    [9223372036854775807n, 'feffffffffffffffff01'],
    [-9223372036854775808n, 'ffffffffffffffffff01'],
  ]
  it.each(cases)('%d encodes as %s and decodes back', (n, expected) => {
    expect(encodeVarlong(n)).toBe(expected)
    if (n > -(2n ** 52n) && n < 2n ** 52n) {
      const buf = Buffer.alloc(10)
      const end = writeVarlongNumber(buf, 0, Number(n))
      expect(buf.subarray(0, end).toString('hex')).toBe(expected)
      expect(varlongSizeNumber(Number(n))).toBe(end)
    }
    const r = reader(expected)
    expect(BigInt(r.readVarlong())).toBe(n)
    expect(r.pos).toBe(expected.length / 2)
  })

  it('number and bigint paths agree and round-trip every int64', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (n) => {
        const buf = Buffer.alloc(10)
        const end = writeVarlongBigInt(buf, 0, n)
        if (n > -(2n ** 52n) && n < 2n ** 52n) {
          const other = Buffer.alloc(10)
          expect(other.subarray(0, writeVarlongNumber(other, 0, Number(n)))).toEqual(buf.subarray(0, end))
        }
        const r = new VarintReader(buf, 0, end)
        return BigInt(r.readVarlong()) === n && r.pos === end
      }),
    )
  })
})
