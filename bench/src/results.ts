/**
 * Result rows, the printed table and the JSON file (bench/results/<timestamp>.json, gitignored).
 * MB/s counts record *value* bytes (10^6 B), as Kafka's perf tools do; batch framing adds
 * about 8 % at 100-byte values.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { LatencySummary } from './histogram.js'
import type { ProcUsage } from './proc-sampler.js'

export interface ScenarioRow {
  /** '1', '7/100B', '8/1000', ... */
  id: string
  title: string
  setup: string
  recordsPerSec?: number
  mbPerSec?: number
  latency?: LatencySummary
  /** What the latency measures, e.g. 'end-to-end from intended send time'. */
  latencyKind?: string
  /** broker-<id>, producer, consumer. */
  usage: Record<string, ProcUsage>
  extra?: Record<string, unknown>
  notes: string[]
}

const fmtInt = (n: number | undefined): string => (n === undefined ? '-' : n.toLocaleString('en-US'))
const fmtMs = (n: number | undefined): string => (n === undefined ? '-' : n < 10 ? n.toFixed(2) : n.toFixed(1))

function cpuOf(usage: Record<string, ProcUsage>, prefix: string): string {
  const v = Object.entries(usage)
    .filter(([k]) => k.startsWith(prefix))
    .sort(([a], [b]) => a.localeCompare(b))
  return v.length === 0 ? '-' : v.map(([, u]) => Math.round(u.cpuPercent)).join('/')
}

function rssOf(usage: Record<string, ProcUsage>, prefix: string): string {
  const v = Object.entries(usage)
    .filter(([k]) => k.startsWith(prefix))
    .sort(([a], [b]) => a.localeCompare(b))
  return v.length === 0 ? '-' : v.map(([, u]) => Math.round(u.rssMaxMb)).join('/')
}

export function formatTable(rows: readonly ScenarioRow[]): string {
  const header = [
    '#',
    'scenario',
    'setup',
    'records/s',
    'MB/s',
    'p50 ms',
    'p99 ms',
    'p99.9 ms',
    'broker CPU %',
    'broker RSS MB',
    'producer CPU %',
    'consumer CPU %',
  ]
  const lines = rows.map((r) => [
    r.id,
    r.title,
    r.setup,
    fmtInt(r.recordsPerSec),
    r.mbPerSec === undefined ? '-' : r.mbPerSec.toFixed(1),
    fmtMs(r.latency?.p50Ms),
    fmtMs(r.latency?.p99Ms),
    fmtMs(r.latency?.p999Ms),
    cpuOf(r.usage, 'broker'),
    rssOf(r.usage, 'broker'),
    cpuOf(r.usage, 'producer'),
    cpuOf(r.usage, 'consumer'),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const fmt = (cells: string[]): string =>
    cells.map((c, i) => (i >= 3 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ')
  const out = [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(fmt)]
  const notes = rows.flatMap((r) => r.notes.map((n) => `  [${r.id}] ${n}`))
  if (notes.length > 0) out.push('', 'notes:', ...notes)
  return out.join('\n')
}

/** Markdown version of the table, for BENCHMARKS.md. */
export function formatMarkdown(rows: readonly ScenarioRow[]): string {
  const out = [
    '| # | scenario | setup | records/s | MB/s | p50 / p99 / p99.9 ms | broker CPU % | broker RSS MB | producer CPU % | consumer CPU % |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ]
  for (const r of rows) {
    const lat =
      r.latency === undefined
        ? '-'
        : `${fmtMs(r.latency.p50Ms)} / ${fmtMs(r.latency.p99Ms)} / ${fmtMs(r.latency.p999Ms)}`
    out.push(
      `| ${r.id} | ${r.title} | ${r.setup} | ${fmtInt(r.recordsPerSec)} | ${r.mbPerSec?.toFixed(1) ?? '-'} | ${lat} | ` +
        `${cpuOf(r.usage, 'broker')} | ${rssOf(r.usage, 'broker')} | ${cpuOf(r.usage, 'producer')} | ${cpuOf(r.usage, 'consumer')} |`,
    )
  }
  return out.join('\n')
}

export const RESULTS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'results')

export async function writeResults(name: string, body: unknown): Promise<string> {
  await mkdir(RESULTS_DIR, { recursive: true })
  const file = path.join(RESULTS_DIR, `${name}.json`)
  await writeFile(file, `${JSON.stringify(body, null, 2)}\n`)
  return file
}
