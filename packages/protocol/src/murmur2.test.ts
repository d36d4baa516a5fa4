import { describe, expect, it } from 'vitest'
import { murmur2, partitionForKey, toPositive } from './murmur2.js'

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8')

describe('murmur2 (Kafka Utils.murmur2)', () => {
  // Kafka's UtilsTest.testMurmur2 vectors (docs/kafka-facts.md §6.1): lengths 2, 6, 24, 26, 48 and 3
  // exercise the 0-, 2- and 3-byte tails of the word loop.
  const vectors: Array<[string, number]> = [
    ['21', -973932308],
    ['foobar', -790332482],
    ['a-little-bit-long-string', -985981536],
    ['a-little-bit-longer-string', -1486304829],
    ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
    ['abc', 479470107],
  ]
  it.each(vectors)('murmur2(%j) = %d', (input, hash) => {
    expect(murmur2(utf8(input))).toBe(hash)
  })

  it('returns a signed int32 and handles the empty key and 1-byte tails', () => {
    for (const input of ['', 'a', 'abcde', 'x'.repeat(1000)]) {
      const h = murmur2(utf8(input))
      expect(Number.isInteger(h) && h >= -(2 ** 31) && h < 2 ** 31).toBe(true)
    }
    expect(murmur2(utf8('a'))).not.toBe(murmur2(utf8('b')))
  })
})

describe('partitionForKey', () => {
  it('matches Kafka for known keys', () => {
    expect(partitionForKey(utf8('key1'), 6)).toBe(2)
    expect(partitionForKey(utf8('user-42'), 6)).toBe(4)
  })

  it('toPositive clears the sign bit rather than taking abs', () => {
    expect(toPositive(-1)).toBe(0x7fffffff)
    expect(toPositive(-(2 ** 31))).toBe(0)
    expect(toPositive(5)).toBe(5)
  })

  it('stays in range and rejects a non-positive partition count', () => {
    for (let i = 0; i < 200; i++) {
      const p = partitionForKey(utf8(`k${i}`), 7)
      expect(p >= 0 && p < 7).toBe(true)
    }
    expect(() => partitionForKey(utf8('k'), 0)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }))
  })
})
