/**
 * How numbers, sizes, times and record bytes read on the page: grouped digits (offsets stay
 * exact when they arrive as decimal strings), binary byte units, and ISO-like local times.
 */
import type { BytesView, Int64 } from './api/types.js'

const grouped = new Intl.NumberFormat('en-US')

/** 1234567 → "1,234,567"; a decimal string past 2^53 is grouped without going through Number. */
export function fmtInt(v: Int64 | null | undefined): string {
  if (v === null || v === undefined) return '—'
  if (typeof v === 'number') return grouped.format(v)
  return /^-?\d+$/.test(v) ? v.replace(/\B(?=(\d{3})+(?!\d))/g, ',') : v
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
export function fmtBytes(v: number | null | undefined): string {
  if (v === null || v === undefined) return '—'
  let n = v
  let u = 0
  while (Math.abs(n) >= 1024 && u < UNITS.length - 1) {
    n /= 1024
    u++
  }
  return `${u === 0 ? n.toFixed(0) : n.toFixed(1)} ${UNITS[u]}`
}

/** A per-second rate with a short unit suffix, for chart labels. */
export function fmtRate(v: number, kind: 'bytes' | 'records'): string {
  if (kind === 'bytes') return `${fmtBytes(v)}/s`
  if (v >= 1e6) return `${(v / 1e6).toFixed(1)}M/s`
  if (v >= 1e4) return `${(v / 1e3).toFixed(1)}k/s`
  return `${grouped.format(Math.round(v))}/s`
}

export function fmtTime(ms: Int64 | null | undefined): string {
  if (ms === null || ms === undefined) return '—'
  const n = Number(ms)
  if (!Number.isFinite(n) || n < 0) return String(ms)
  const d = new Date(n)
  const p = (x: number, w = 2): string => String(x).padStart(w, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`
}

/** Hex bytes in groups of two, 16 per line, as a hex viewer shows them. */
export function hexLines(hex: string): string {
  const pairs = hex.match(/../g) ?? []
  const lines: string[] = []
  for (let i = 0; i < pairs.length; i += 16) lines.push(pairs.slice(i, i + 16).join(' '))
  return lines.join('\n')
}

/** A record's key or value as shown in a cell: JSON pretty-printed, text as is, binary as hex. */
export function bytesText(b: BytesView, pretty: boolean): string {
  if (b === null) return 'null'
  if (b.encoding === 'hex') return hexLines(b.hex) + (b.truncated ? `\n… (${fmtBytes(b.size)})` : '')
  if (b.json !== undefined && pretty) return JSON.stringify(b.json, null, 2)
  return b.text + (b.truncated ? ` … (${fmtBytes(b.size)})` : '')
}

/** One-line preview of a record's value for the table row. */
export function bytesPreview(b: BytesView, max = 120): string {
  if (b === null) return 'null'
  const s = b.encoding === 'hex' ? `0x${b.hex.slice(0, max)}` : b.json !== undefined ? JSON.stringify(b.json) : b.text
  return s.length > max ? `${s.slice(0, max)}…` : s
}
