/**
 * Requests per second per broker over a measured window, from the brokers' own Prometheus
 * counters (sluice_rpc_requests_total on each broker's admin port, summed over result codes).
 *
 * Why: on a shared 2-core box the brokers' CPU depends on how many requests they serve (each
 * costs a process wake-up, gRPC/HTTP-2 framing and protobuf work), not only on records; with the
 * request rates in the table, CPU per request can be read directly instead of inferred.
 */

/** broker name -> method -> count (all result codes). */
export type RequestCounts = Map<string, Map<string, number>>

const LINE = /^sluice_rpc_requests_total\{service="[^"]*",method="(\w+)",code="[^"]*"\} (\d+(?:\.\d+)?)$/gm

export function parseRequestCounts(metricsText: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const m of metricsText.matchAll(LINE)) out.set(m[1]!, (out.get(m[1]!) ?? 0) + Number(m[2]))
  return out
}

/** Reads every broker's counters; a broker that cannot be read is left out (never throws). */
export async function scrapeRequestCounts(adminPorts: ReadonlyMap<string, number>): Promise<RequestCounts> {
  const out: RequestCounts = new Map()
  await Promise.all(
    [...adminPorts].map(async ([name, port]) => {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5000) })
        out.set(name, parseRequestCounts(await res.text()))
      } catch {
        /* reported as missing */
      }
    }),
  )
  return out
}

/** broker -> method -> requests/s between two scrapes, methods with none left out. */
export function requestRates(
  before: RequestCounts,
  after: RequestCounts,
  windowMs: number,
): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {}
  for (const [name, counts] of [...after].sort(([a], [b]) => a.localeCompare(b))) {
    const was = before.get(name)
    if (was === undefined || windowMs <= 0) continue
    const rates: Record<string, number> = {}
    for (const [method, n] of counts) {
      const perSec = Math.round((n - (was.get(method) ?? 0)) / (windowMs / 1000))
      if (perSec > 0) rates[method] = perSec
    }
    out[name] = rates
  }
  return out
}

/** "broker-1 Produce 101 Fetch 133; broker-2 ..." (only the data-path methods, most frequent first). */
export function describeRequestRates(rates: Record<string, Record<string, number>>): string {
  return Object.entries(rates)
    .map(
      ([name, r]) =>
        `${name} ${
          Object.entries(r)
            .sort(([, a], [, b]) => b - a)
            .map(([m, n]) => `${m} ${n.toLocaleString('en-US')}`)
            .join(' ') || 'none'
        }`,
    )
    .join('; ')
}
