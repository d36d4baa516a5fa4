/**
 * Latency histograms: HdrHistogram (hdr-histogram-js) recording microseconds, 3 significant
 * digits, reported in milliseconds. Values are recorded by the caller measured from the
 * *intended* time of an event (coordinated omission corrected), never from when a stalled loop
 * got round to it.
 */
import * as hdr from 'hdr-histogram-js'

export interface LatencySummary {
  count: number
  p50Ms: number
  p90Ms: number
  p99Ms: number
  p999Ms: number
  maxMs: number
  meanMs: number
}

export type Histogram = ReturnType<typeof hdr.build>

export function newHistogram(): Histogram {
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: 3 })
}

const ms = (us: number): number => Math.round(us) / 1000

export function summarize(h: Histogram): LatencySummary {
  return {
    count: h.totalCount,
    p50Ms: ms(h.getValueAtPercentile(50)),
    p90Ms: ms(h.getValueAtPercentile(90)),
    p99Ms: ms(h.getValueAtPercentile(99)),
    p999Ms: ms(h.getValueAtPercentile(99.9)),
    maxMs: ms(h.maxValue),
    meanMs: ms(h.mean),
  }
}

/** Records `count` events of `valueUs` microseconds (clamped into the trackable range). */
export function recordUs(h: Histogram, valueUs: number, count = 1): void {
  const v = Math.max(1, Math.min(600_000_000, Math.round(valueUs)))
  if (count === 1) h.recordValue(v)
  else h.recordValueWithCount(v, count)
}
