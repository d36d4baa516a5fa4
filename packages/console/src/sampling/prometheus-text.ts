/**
 * Reads the Prometheus text exposition the brokers' admin servers answer on /metrics: one
 * sample per line, `name{label="value",...} number`, `#` lines skipped. Only the metric names
 * asked for are kept, so a scrape of a broker with thousands of partitions builds little.
 */
export interface MetricSample {
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

function unescapeLabel(v: string): string {
  return v.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c))
}

export function parsePrometheusText(text: string, wanted: ReadonlySet<string>): Map<string, MetricSample[]> {
  const out = new Map<string, MetricSample[]>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const m = LINE.exec(line)
    if (m === null || !wanted.has(m[1]!)) continue
    const value = Number(m[3])
    if (!Number.isFinite(value)) continue
    const labels: Record<string, string> = Object.create(null) as Record<string, string>
    if (m[2] !== undefined) for (const l of m[2].matchAll(LABEL)) labels[l[1]!] = unescapeLabel(l[2]!)
    const list = out.get(m[1]!)
    if (list === undefined) out.set(m[1]!, [{ labels, value }])
    else list.push({ labels, value })
  }
  return out
}

/** The sum of a metric's samples (over every label set). */
export const sumOf = (parsed: ReadonlyMap<string, MetricSample[]>, name: string): number =>
  (parsed.get(name) ?? []).reduce((s, x) => s + x.value, 0)

/** GET http://host:port/metrics with a deadline; undefined when the broker does not answer. */
export async function scrapeMetrics(
  host: string,
  adminPort: number,
  wanted: ReadonlySet<string>,
  timeoutMs: number,
): Promise<Map<string, MetricSample[]> | undefined> {
  const h = host.includes(':') ? `[${host}]` : host
  try {
    const res = await fetch(`http://${h}:${adminPort}/metrics`, { signal: AbortSignal.timeout(timeoutMs) })
    if (!res.ok) return undefined
    return parsePrometheusText(await res.text(), wanted)
  } catch {
    return undefined
  }
}
