import { InvalidArgumentError } from 'commander'
import { describe, expect, it } from 'vitest'
import {
  intParser,
  parseAcks,
  parseBootstrap,
  parseCompression,
  parseConfigPair,
  parseOffset,
  parseSeparator,
  parseTimestamp,
} from './parse.js'

describe('parseBootstrap', () => {
  it('splits and trims a comma-separated list', () => {
    expect(parseBootstrap('127.0.0.1:9092, localhost:9093')).toEqual(['127.0.0.1:9092', 'localhost:9093'])
  })
  it.each(['', 'localhost', ':9092', 'h:0', 'h:70000', 'h:12a', 'h:'])('rejects %j', (text) => {
    expect(() => parseBootstrap(text)).toThrow(InvalidArgumentError)
  })
})

describe('number parsers', () => {
  it('accepts integers within bounds only', () => {
    const p = intParser(1, 10)
    expect(p('3')).toBe(3)
    expect(() => p('0')).toThrow('must be from 1 to 10')
    expect(() => p('11')).toThrow(InvalidArgumentError)
    expect(() => p('2.5')).toThrow('not an integer')
    expect(() => p('x')).toThrow(InvalidArgumentError)
    expect(intParser(0)('123456')).toBe(123456)
  })
  it('parses offsets beyond 2^53 as bigint', () => {
    expect(parseOffset('9007199254740993')).toBe(9007199254740993n)
    expect(() => parseOffset('-1')).toThrow(InvalidArgumentError)
  })
})

describe('option value parsers', () => {
  it('accumulates --config pairs, keeping = inside values', () => {
    const a = parseConfigPair('retention.ms=1000')
    expect(parseConfigPair('x=a=b', a)).toEqual({ 'retention.ms': '1000', x: 'a=b' })
    expect(() => parseConfigPair('novalue')).toThrow(InvalidArgumentError)
    expect(() => parseConfigPair('=v')).toThrow(InvalidArgumentError)
  })
  it('parses acks', () => {
    expect(parseAcks('0')).toBe(0)
    expect(parseAcks('1')).toBe(1)
    expect(parseAcks('all')).toBe('all')
    expect(parseAcks('-1')).toBe('all')
    expect(() => parseAcks('2')).toThrow(InvalidArgumentError)
  })
  it('parses compression names', () => {
    expect(parseCompression('zstd')).toBe('zstd')
    expect(() => parseCompression('brotli')).toThrow('must be one of none, gzip, snappy, lz4, zstd')
  })
  it('parses timestamps as ms or ISO-8601', () => {
    expect(parseTimestamp('1700000000000')).toBe(1700000000000n)
    expect(parseTimestamp('2024-01-01T00:00:00Z')).toBe(1704067200000n)
    expect(() => parseTimestamp('yesterday')).toThrow(InvalidArgumentError)
    expect(() => parseTimestamp('2024-13-45')).toThrow(InvalidArgumentError)
  })
  it('rejects an empty separator', () => {
    expect(parseSeparator(':')).toBe(':')
    expect(() => parseSeparator('')).toThrow(InvalidArgumentError)
  })
})
