import { describe, expect, it } from 'vitest'
import { isConnectError } from '../errors.js'
import { parseJsonText, stringifyJson } from './json-text.js'

describe('parseJsonText', () => {
  it('keeps integers beyond the safe range exact as bigint, others as number', () => {
    const v = parseJsonText('{"a": 9007199254740993, "b": -9223372036854775808, "c": 42, "d": 1.5, "e": 1e3}')
    expect(v).toEqual({ a: 9007199254740993n, b: -9223372036854775808n, c: 42, d: 1.5, e: 1000 })
  })

  it('reads long digit runs inside strings as text, and numbers of 16 digits or more exactly', () => {
    expect(parseJsonText('{"card":"1234567812345678","n":1234567812345678,"s":9007199254740991}')).toEqual({
      card: '1234567812345678',
      n: 1234567812345678,
      s: 9007199254740991,
    })
  })

  it('reads strings, escapes, arrays, literals and a __proto__ key as a plain key', () => {
    const v = parseJsonText(' ["a\\"b\\u00e9", true, false, null, [], {}, {"__proto__": 1}] ') as unknown[]
    expect(v.slice(0, 6)).toEqual(['a"bé', true, false, null, [], {}])
    expect(Object.keys(v[6] as object)).toEqual(['__proto__'])
    expect(Object.getPrototypeOf(v[6])).toBe(Object.prototype)
  })

  it.each(['', '{', '[1,]', '{"a" 1}', 'tru', '01', '"abc', '1 2', '-', '{"a":1,}'])('refuses %j as CONVERTER', (t) => {
    let caught: unknown
    try {
      parseJsonText(t)
    } catch (e) {
      caught = e
    }
    expect(isConnectError(caught, 'CONVERTER')).toBe(true)
  })
})

describe('stringifyJson', () => {
  it('writes bigint as digits, Buffer as base64, Map as pairs, undefined as null', () => {
    const text = stringifyJson({ big: 2n ** 63n - 1n, b: Buffer.from('hi'), m: new Map([[1, 'x']]), u: undefined })
    expect(text).toBe('{"big":9223372036854775807,"b":"aGk=","m":[[1,"x"]],"u":null}')
  })

  it('round-trips a large int64 exactly', () => {
    expect(parseJsonText(stringifyJson({ v: -(2n ** 63n) }))).toEqual({ v: -(2n ** 63n) })
  })

  it('refuses NaN', () => {
    expect(() => stringifyJson(Number.NaN)).toThrow(/cannot be written as JSON/)
  })
})
