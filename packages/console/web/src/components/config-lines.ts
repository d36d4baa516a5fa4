/** `key=value` lines (topic configs, record headers) as typed in a textarea, parsed and checked. */
export function parseKeyValueLines(text: string, what: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    const eq = line.indexOf('=')
    if (eq <= 0) throw new Error(`${what} line ${i + 1}: write key=value`)
    out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim()
  }
  return out
}
