/**
 * Turns the pino JSON lines of `sluice dev`'s child processes into one human line each:
 *
 *   broker-1  INFO  registered with metadata service  brokerEpoch=3 component=session
 *
 * The process name comes first (padded so the columns line up), then the level, the message and
 * the remaining fields as key=value. Lines that are not pino JSON (a crash's stack trace, the
 * `LISTENING <port>` line) pass through with the same prefix, so nothing a child prints is lost.
 * Colours (ANSI) only when asked for: the caller decides from `stdout.isTTY` and NO_COLOR.
 */

const LEVELS: ReadonlyMap<number, string> = new Map([
  [10, 'TRACE'],
  [20, 'DEBUG'],
  [30, 'INFO'],
  [40, 'WARN'],
  [50, 'ERROR'],
  [60, 'FATAL'],
])

/** pino's bookkeeping fields (and the process's own name), never shown as key=value. */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'v', 'name', 'service'])

const ESC = '\u001b['
export const ansi = {
  reset: `${ESC}0m`,
  dim: `${ESC}2m`,
  bold: `${ESC}1m`,
  red: `${ESC}31m`,
  green: `${ESC}32m`,
  yellow: `${ESC}33m`,
  blue: `${ESC}34m`,
  magenta: `${ESC}35m`,
  cyan: `${ESC}36m`,
  gray: `${ESC}90m`,
} as const

/** Colours handed out to process names in turn. */
export const NAME_COLOURS = [ansi.cyan, ansi.magenta, ansi.yellow, ansi.blue, ansi.green] as const

export interface PrettyOptions {
  /** The child's name, e.g. `broker-1`; padded to `nameWidth`. */
  readonly name: string
  readonly nameWidth?: number
  readonly colour?: boolean
  /** ANSI colour for the name, when `colour` is on. */
  readonly nameColour?: string
  /** Prefix each line with the log record's local time (HH:MM:SS.mmm). */
  readonly showTime?: boolean
}

export function levelName(level: unknown): string {
  if (typeof level === 'number') return LEVELS.get(level) ?? `L${level}`
  if (typeof level === 'string') return level.toUpperCase()
  return 'INFO'
}

function levelColour(level: string): string {
  switch (level) {
    case 'FATAL':
    case 'ERROR':
      return ansi.red
    case 'WARN':
      return ansi.yellow
    case 'INFO':
      return ansi.green
    default:
      return ansi.gray
  }
}

/** A field value as a short token: plain when safe, JSON-quoted when it has spaces or quotes. */
export function fieldText(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value)
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value === null) {
    return String(value)
  }
  return JSON.stringify(value) ?? String(value)
}

/** pino serialises errors as { type, message, stack, code, ... }; show the essentials. */
function errorText(err: unknown): string {
  if (err === null || typeof err !== 'object') return fieldText(err)
  const e = err as { type?: unknown; message?: unknown; code?: unknown }
  const parts = [typeof e.code === 'string' ? e.code : typeof e.type === 'string' ? e.type : 'Error']
  if (typeof e.message === 'string' && e.message !== '') parts.push(e.message)
  return JSON.stringify(parts.join(': '))
}

function timeText(time: unknown): string | undefined {
  if (typeof time !== 'number') return undefined
  const d = new Date(time)
  const p = (n: number, w = 2): string => String(n).padStart(w, '0')
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`
}

function paint(text: string, colour: string | undefined, on: boolean): string {
  return on && colour !== undefined ? `${colour}${text}${ansi.reset}` : text
}

/** Formats one line of child output (without its trailing newline) as one human line. */
export function prettyLine(line: string, options: PrettyOptions): string {
  const colour = options.colour ?? false
  const name = paint(options.name.padEnd(options.nameWidth ?? options.name.length), options.nameColour, colour)
  const record = parseRecord(line)
  if (record === undefined) return `${name}  ${line}`
  const level = levelName(record.level)
  const parts = [name]
  if (options.showTime === true) {
    const t = timeText(record.time)
    if (t !== undefined) parts.push(paint(t, ansi.gray, colour))
  }
  parts.push(paint(level.padEnd(5), levelColour(level), colour))
  parts.push(typeof record.msg === 'string' ? record.msg : '')
  const fields: string[] = []
  for (const [key, value] of Object.entries(record)) {
    if (HIDDEN.has(key) || value === undefined) continue
    fields.push(`${key}=${key === 'err' || key === 'error' ? errorText(value) : fieldText(value)}`)
  }
  if (fields.length > 0) parts.push(paint(fields.join(' '), ansi.dim, colour))
  return parts.join('  ').trimEnd()
}

function parseRecord(line: string): Record<string, unknown> | undefined {
  const trimmed = line.trim()
  if (!trimmed.startsWith('{')) return undefined
  try {
    const value: unknown = JSON.parse(trimmed)
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
    const record = value as Record<string, unknown>
    // Any JSON object is not necessarily a log record: pino's always carry a level.
    return 'level' in record ? record : undefined
  } catch {
    return undefined
  }
}
