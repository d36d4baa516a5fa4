import { describe, expect, it } from 'vitest'
import { niceMax } from './chart-scale.js'

describe('niceMax', () => {
  it('rounds up to 1, 2 or 5 times a power of ten', () => {
    expect(niceMax(0)).toBe(1)
    expect(niceMax(-3)).toBe(1)
    expect(niceMax(Number.NaN)).toBe(1)
    expect(niceMax(1)).toBe(1)
    expect(niceMax(1.01)).toBe(2)
    expect(niceMax(3)).toBe(5)
    expect(niceMax(7)).toBe(10)
    expect(niceMax(1500)).toBe(2000)
    expect(niceMax(18_500)).toBe(20_000)
    expect(niceMax(0.03)).toBeCloseTo(0.05)
  })

  it('rounds byte rates in 1024s', () => {
    expect(niceMax(300 * 1024, true)).toBe(500 * 1024)
    expect(niceMax(3 * 1024 * 1024, true)).toBe(5 * 1024 * 1024)
    expect(niceMax(900, true)).toBe(1000)
    // Never below the value, whatever the unit.
    for (const v of [1023, 1024, 1025, 999_999, 123_456_789]) expect(niceMax(v, true)).toBeGreaterThanOrEqual(v)
  })
})
