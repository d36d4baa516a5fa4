import { describe, expect, it } from 'vitest'
import type { LatencySummary } from '../../histogram.js'
import { compareEndToEnd, compareHops, formatHopComparison, ratio } from './round-compare.js'

const lat = (p50Ms: number, p99Ms: number, p999Ms: number): LatencySummary => ({
  count: 10,
  p50Ms,
  p90Ms: p99Ms,
  p99Ms,
  p999Ms,
  maxMs: p999Ms,
  meanMs: p50Ms,
})

describe('round skeleton comparison', () => {
  it('divides Sluice by the skeleton, and gives no ratio without a usable floor', () => {
    expect(ratio(3, 2)).toBe(1.5)
    expect(ratio(1, 3)).toBe(0.33)
    expect(ratio(undefined, 2)).toBeUndefined()
    expect(ratio(2, undefined)).toBeUndefined()
    expect(ratio(2, 0.005)).toBeUndefined()
  })

  it('pairs hops by name, keeping Sluice order and leaving hops the skeleton lacks without a ratio', () => {
    const rows = compareHops(
      [
        { hop: 'a', count: 5, p50Ms: 0.4, p99Ms: 2 },
        { hop: 'b', count: 5, p50Ms: 1, p99Ms: 4 },
      ],
      [{ hop: 'b', count: 7, p50Ms: 0.5, p99Ms: 1 }],
    )
    expect(rows.map((r) => [r.hop, r.ratioP50, r.ratioP99])).toEqual([
      ['a', undefined, undefined],
      ['b', 2, 4],
    ])
    const text = formatHopComparison('t', rows)
    expect(text.split('\n')).toHaveLength(4)
    expect(text).toContain('2.00')
  })

  it('compares end-to-end percentiles', () => {
    const c = compareEndToEnd(lat(6, 30, 40), lat(2, 10, 10))
    expect([c.ratioP50, c.ratioP99, c.ratioP999]).toEqual([3, 3, 4])
  })
})
