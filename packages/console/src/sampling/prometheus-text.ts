/**
 * Reads the Prometheus text exposition the brokers' admin servers answer on /metrics: one
 * sample per line, `name{label="value",...} number`, `#` lines skipped. Only the lines of the
 * metric names asked for are read, so a scrape of a broker with thousands of partitions costs
 * little of the console's event loop.
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
  // Each wanted name is found with indexOf: a broker's page is some 300 KB at 1,000 partitions,
  // and splitting all of it into lines would cost more than the few lines wanted.
  for (const name of wanted) {
    const needle = `\n${name}`
    const next = (from: number): number => {
      const i = text.indexOf(needle, from)
      return i < 0 ? -1 : i + 1
    }
    for (let at = text.startsWith(name) ? 0 : next(0); at >= 0; at = next(at)) {
      const eol = text.indexOf('\n', at)
      const m = LINE.exec(text.slice(at, eol < 0 ? text.length : eol))
      // A longer name with the same start (name_sum, name_total) is another metric.
      if (m === null || m[1] !== name) continue
      const value = Number(m[3])
      if (!Number.isFinite(value)) continue
      const labels: Record<string, string> = Object.create(null) as Record<string, string>
      if (m[2] !== undefined) for (const l of m[2].matchAll(LABEL)) labels[l[1]!] = unescapeLabel(l[2]!)
      const list = out.get(name)
      if (list === undefined) out.set(name, [{ labels, value }])
      else list.push({ labels, value })
    }
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
