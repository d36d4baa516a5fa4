/**
 * Summaries of a probe's samples (milliseconds): count, median, p99 and the extremes, by nearest
 * rank over the sorted samples (the same rule as the anatomy's table, so a hop and its floor are
 * read the same way). Pure, so a unit test can pin the arithmetic.
 */
import { percentile } from '../anatomy/anatomy-join.js'

export interface SampleStats {
  readonly count: number
  readonly p50Ms: number | undefined
  readonly p99Ms: number | undefined
  readonly minMs: number | undefined
  readonly maxMs: number | undefined
}

/** Rounded to the microsecond: finer digits are noise on this machine. */
const round3 = (v: number | undefined): number | undefined =>
  v === undefined ? undefined : Math.round(v * 1000) / 1000

export function sampleStats(samplesMs: readonly number[]): SampleStats {
  const sorted = [...samplesMs].sort((a, b) => a - b)
  return {
    count: sorted.length,
    p50Ms: round3(percentile(sorted, 50)),
    p99Ms: round3(percentile(sorted, 99)),
    minMs: round3(sorted[0]),
    maxMs: round3(sorted[sorted.length - 1]),
  }
}

/** Nanoseconds between two process.hrtime.bigint() stamps, in milliseconds. */
export function msBetween(fromNs: bigint, toNs: bigint): number {
  return Number(toNs - fromNs) / 1e6
}
