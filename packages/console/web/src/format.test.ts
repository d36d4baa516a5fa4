import { describe, expect, it } from 'vitest'
import { bytesPreview, bytesText, fmtBytes, fmtInt, fmtRate, hexLines } from './format.js'

describe('format', () => {
  it('groups digits, also of 64-bit offsets that arrive as decimal strings', () => {
    expect(fmtInt(0)).toBe('0')
    expect(fmtInt(1234567)).toBe('1,234,567')
    expect(fmtInt('9223372036854775807')).toBe('9,223,372,036,854,775,807')
    expect(fmtInt('-1000')).toBe('-1,000')
    expect(fmtInt(null)).toBe('—')
    expect(fmtInt(undefined)).toBe('—')
  })

  it('shows sizes and rates in binary units', () => {
    expect(fmtBytes(512)).toBe('512 B')
    expect(fmtBytes(1536)).toBe('1.5 KiB')
    expect(fmtBytes(3 * 1024 ** 3)).toBe('3.0 GiB')
    expect(fmtBytes(null)).toBe('—')
    expect(fmtRate(2048, 'bytes')).toBe('2.0 KiB/s')
    expect(fmtRate(12, 'records')).toBe('12/s')
    expect(fmtRate(18_500, 'records')).toBe('18.5k/s')
    expect(fmtRate(2_500_000, 'records')).toBe('2.5M/s')
  })

  it('shows JSON pretty-printed, text as it is, binary as hex lines of 16 bytes', () => {
    const json = { encoding: 'utf8', text: '{"a":1}', json: { a: 1 }, size: 7, truncated: false } as const
    expect(bytesText(json, true)).toBe('{\n  "a": 1\n}')
    expect(bytesText(json, false)).toBe('{"a":1}')
    expect(bytesPreview(json)).toBe('{"a":1}')
    expect(bytesText(null, true)).toBe('null')
    const hex = '00'.repeat(17)
    expect(hexLines(hex).split('\n')).toEqual([Array(16).fill('00').join(' '), '00'])
    expect(bytesPreview({ encoding: 'hex', hex: '00ff', size: 2, truncated: false })).toBe('0x00ff')
    expect(bytesText({ encoding: 'utf8', text: 'abc', size: 70_000, truncated: true }, true)).toBe('abc … (68.4 KiB)')
  })
})
