import { describe, expect, it } from 'vitest'
import type { ProbeResult } from './probe-result.js'
import { formatProbeTable } from './probe-table.js'

const r = (over: Partial<ProbeResult>): ProbeResult => ({
  probe: 'tcp',
  variant: 'framed TCP',
  leg: 'round trip',
  ratePerSec: 200,
  bytes: 100,
  count: 400,
  p50Ms: 0.25,
  p99Ms: 3.2,
  minMs: 0.1,
  maxMs: 9,
  ...over,
})

describe('formatProbeTable', () => {
  it('puts each series on one line with its rates side by side, sorted by rate, saturation marked', () => {
    const text = formatProbeTable([
      r({ ratePerSec: 10_000, count: 5000, p50Ms: 0.4, p99Ms: 5, saturated: true, cpuUsPerMessage: 17 }),
      r({ cpuUsPerMessage: 223 }),
      r({ leg: 'one-way request', p50Ms: 0.15 }),
    ])
    const [header, first, second] = text.split('\n')
    expect(header).toMatch(/^probe +@200\/s n +p50 ms +p99 ms +CPU µs +@10000\/s n/)
    expect(first).toMatch(
      /^tcp: framed TCP, round trip, 100 B +400 +0\.250 +3\.200 +223 +5000 +0\.400 +5\.000 +sat 17$/,
    )
    // A series measured at one rate only leaves the other rate's cells empty.
    expect(second).toMatch(/^tcp: framed TCP, one-way request, 100 B +400 +0\.150 +3\.200 +- +- +-$/)
  })
})
