/**
 * Java `.properties` text as Kafka's tools read it (java.util.Properties.load), so a connector or
 * worker file written for Kafka Connect means the same here: `key=value` or `key: value` lines,
 * `#` and `!` comments, a line ending in an odd number of backslashes continuing on the next (its
 * leading whitespace dropped), and backslash escapes in keys and values: `\t` `\n` `\r` `\f`,
 * `\uXXXX`, and `\` before any other character standing for that character (so the regex
 * `public\\.orders` in a file is `public\.orders`, and `C:\\data` is `C:\data`).
 *
 * Departures from Java, on purpose: a line without `=` or `:` is refused (Java would take a
 * space as the separator, which hides typos), and trailing whitespace of a value is dropped.
 */
import { UsageError } from '../output.js'

export function parseProperties(text: string, file: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of logicalLines(text)) {
    const sep = separatorAt(line)
    if (sep < 0) throw new UsageError(`${file}: cannot read the line "${line}" (expected key=value)`)
    const key = unescapeJava(line.slice(0, sep).trim())
    if (key === '') throw new UsageError(`${file}: cannot read the line "${line}" (expected key=value)`)
    out[key] = unescapeJava(line.slice(sep + 1).trim())
  }
  return out
}

/** The file's non-blank, non-comment lines with continuations joined. */
function logicalLines(text: string): string[] {
  const lines: string[] = []
  let pending: string | undefined
  for (const raw of text.split(/\r?\n|\r/)) {
    const line = pending === undefined ? raw.trimStart() : pending + raw.trimStart()
    if (pending === undefined && (line === '' || line.startsWith('#') || line.startsWith('!'))) continue
    const trailing = /\\*$/.exec(line)![0].length
    if (trailing % 2 === 1) {
      pending = line.slice(0, -1)
      continue
    }
    pending = undefined
    lines.push(line)
  }
  if (pending !== undefined && pending.trim() !== '') lines.push(pending)
  return lines
}

/** Index of the first `=` or `:` not escaped by a backslash, or -1. */
function separatorAt(line: string): number {
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (c === '\\') i++
    else if (c === '=' || c === ':') return i
  }
  return -1
}

const ESCAPES: Readonly<Record<string, string>> = { t: '\t', n: '\n', r: '\r', f: '\f' }

function unescapeJava(s: string): string {
  if (!s.includes('\\')) return s
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!
    if (c !== '\\') {
      out += c
      continue
    }
    const next = s[++i]
    if (next === undefined) break
    if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(i + 1, i + 5))) {
      out += String.fromCharCode(Number.parseInt(s.slice(i + 1, i + 5), 16))
      i += 4
    } else out += ESCAPES[next] ?? next
  }
  return out
}
