/**
 * Sluice's round beside the round skeleton's (round-probe.ts), hop by hop and end to end: pure,
 * so a unit test pins the arithmetic. The ratio is Sluice / skeleton: near 1, the hop costs
 * what this machine charges for that message at that load; well above, Sluice adds the rest.
 */
import type { HopStats } from '../../anatomy/anatomy-join.js'
import type { LatencySummary } from '../../histogram.js'

export interface HopComparison {
  readonly hop: string
  readonly sluiceP50Ms: number | undefined
  readonly skeletonP50Ms: number | undefined
  readonly ratioP50: number | undefined
  readonly sluiceP99Ms: number | undefined
  readonly skeletonP99Ms: number | undefined
  readonly ratioP99: number | undefined
}

/**
 * The ratio of two times, 2 decimals; none when either is missing or the floor is below the
 * clock's useful resolution (10 µs), where a ratio says nothing.
 */
export function ratio(sluice: number | undefined, floor: number | undefined): number | undefined {
  if (sluice === undefined || floor === undefined || floor < 0.01) return undefined
  return Math.round((sluice / floor) * 100) / 100
}

export function compareHops(sluice: readonly HopStats[], skeleton: readonly HopStats[]): HopComparison[] {
  const byHop = new Map(skeleton.map((s) => [s.hop, s]))
  return sluice.map((s) => {
    const k = byHop.get(s.hop)
    return {
      hop: s.hop,
      sluiceP50Ms: s.p50Ms,
      skeletonP50Ms: k?.p50Ms,
      ratioP50: ratio(s.p50Ms, k?.p50Ms),
      sluiceP99Ms: s.p99Ms,
      skeletonP99Ms: k?.p99Ms,
      ratioP99: ratio(s.p99Ms, k?.p99Ms),
    }
  })
}

export interface EndToEndComparison {
  readonly sluice: LatencySummary
  readonly skeleton: LatencySummary
  readonly ratioP50: number | undefined
  readonly ratioP99: number | undefined
  readonly ratioP999: number | undefined
}

export function compareEndToEnd(sluice: LatencySummary, skeleton: LatencySummary): EndToEndComparison {
  return {
    sluice,
    skeleton,
    ratioP50: ratio(sluice.p50Ms, skeleton.p50Ms),
    ratioP99: ratio(sluice.p99Ms, skeleton.p99Ms),
    ratioP999: ratio(sluice.p999Ms, skeleton.p999Ms),
  }
}

const num = (v: number | undefined, width = 9, digits = 3): string =>
  (v === undefined ? '-' : v.toFixed(digits)).padStart(width)

export function formatHopComparison(title: string, rows: readonly HopComparison[]): string {
  const width = Math.max(...rows.map((r) => r.hop.length), 3)
  const lines = [
    title,
    `${'hop'.padEnd(width)}  ${'Sluice p50'.padStart(10)}  ${'skel. p50'.padStart(9)}  ${'x'.padStart(6)}  ${'Sluice p99'.padStart(10)}  ${'skel. p99'.padStart(9)}  ${'x'.padStart(6)}`,
  ]
  for (const r of rows)
    lines.push(
      `${r.hop.padEnd(width)}  ${num(r.sluiceP50Ms, 10)}  ${num(r.skeletonP50Ms)}  ${num(r.ratioP50, 6, 2)}  ${num(r.sluiceP99Ms, 10)}  ${num(r.skeletonP99Ms)}  ${num(r.ratioP99, 6, 2)}`,
    )
  return lines.join('\n')
}
