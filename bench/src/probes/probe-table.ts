/**
 * The probes' results as a text table: one line per probe, variant, leg and size, with the
 * median and p99 (ms) at each message rate side by side; a series whose peer could not keep
 * up with the rate is marked `sat` (its figures are a queue's). Pure.
 */
import type { ProbeResult } from './probe-result.js'

const num = (v: number | undefined): string => (v === undefined ? '-' : v.toFixed(3))

export function formatProbeTable(results: readonly ProbeResult[]): string {
  const rates = [...new Set(results.map((r) => r.ratePerSec))].sort((a, b) => a - b)
  const rows = new Map<string, { label: string; byRate: Map<number, ProbeResult> }>()
  for (const r of results) {
    const key = `${r.probe}|${r.variant}|${r.leg}|${r.bytes}`
    let row = rows.get(key)
    if (row === undefined) {
      row = { label: `${r.probe}: ${r.variant}, ${r.leg}, ${r.bytes} B`, byRate: new Map() }
      rows.set(key, row)
    }
    row.byRate.set(r.ratePerSec, r)
  }
  const header = ['probe', ...rates.flatMap((rate) => [`@${rate}/s n`, 'p50 ms', 'p99 ms', 'CPU µs'])]
  const body = [...rows.values()].map((row) => [
    row.label,
    ...rates.flatMap((rate) => {
      const r = row.byRate.get(rate)
      const cpu = r?.cpuUsPerMessage?.toString() ?? ''
      return [String(r?.count ?? '-'), num(r?.p50Ms), num(r?.p99Ms), r?.saturated === true ? `sat ${cpu}`.trim() : cpu]
    }),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)))
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd()
  return [line(header), ...body.map(line)].join('\n')
}
