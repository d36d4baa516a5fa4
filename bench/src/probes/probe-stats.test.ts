import { describe, expect, it } from 'vitest'
import { judgeBrackets } from './clock-check.js'
import { msBetween, sampleStats } from './probe-stats.js'

describe('sampleStats', () => {
  it('takes nearest-rank percentiles of unsorted samples', () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i) // 100 .. 1, unsorted
    expect(sampleStats(samples)).toEqual({ count: 100, p50Ms: 50, p99Ms: 99, minMs: 1, maxMs: 100 })
  })

  it('rounds to the microsecond and leaves an empty series undefined', () => {
    expect(sampleStats([0.12345]).p50Ms).toBe(0.123)
    expect(sampleStats([])).toEqual({
      count: 0,
      p50Ms: undefined,
      p99Ms: undefined,
      minMs: undefined,
      maxMs: undefined,
    })
  })

  it('converts hrtime differences to milliseconds', () => {
    expect(msBetween(1_000_000n, 3_500_000n)).toBe(2.5)
    expect(msBetween(3_000_000n, 1_000_000n)).toBe(-2)
  })
})

describe('judgeBrackets', () => {
  it('counts peer readings outside their bracket and finds the narrowest bracket', () => {
    const r = judgeBrackets([
      { beforeNs: 1000n, peerNs: 1500n, afterNs: 3000n },
      { beforeNs: 5000n, peerNs: 4999n, afterNs: 6000n }, // the peer's clock behind: a violation
      { beforeNs: 7000n, peerNs: 7600n, afterNs: 7500n }, // ahead: a violation
    ])
    expect(r).toEqual({ violations: 2, narrowestBracketUs: 0.5 })
  })
})
