/**
 * The overview's live bytes/records in and out of the whole cluster. While the overview is open
 * (someone asked in the last minute), every `intervalMs` the console scrapes each registered
 * broker's /metrics on its admin port, sums the per-topic counters (docs/metrics.md:
 * sluice_topic_{bytes,records}_{in,out}_total) and turns the differences since the previous
 * scrape into per-second rates. A broker missing from one scrape (down, restarted) adds
 * nothing to that interval; a counter that went backwards (a restart) counts from zero. The
 * ring keeps the last `capacity` samples (10 minutes at 5 s).
 */
import type { SluiceClient } from '@sluice/client'
import { DemandLoop, SampleRing } from './demand-loop.js'
import { scrapeMetrics, sumOf } from './prometheus-text.js'

export interface ThroughputSample {
  readonly t: number
  readonly bytesIn: number
  readonly bytesOut: number
  readonly recordsIn: number
  readonly recordsOut: number
}

const COUNTERS = {
  bytesIn: 'sluice_topic_bytes_in_total',
  bytesOut: 'sluice_topic_bytes_out_total',
  recordsIn: 'sluice_topic_records_in_total',
  recordsOut: 'sluice_topic_records_out_total',
} as const
type Field = keyof typeof COUNTERS
const WANTED = new Set<string>(Object.values(COUNTERS))

interface BrokerTotals {
  readonly t: number
  readonly totals: Record<Field, number>
}

export class ThroughputSampler {
  private readonly ring: SampleRing<ThroughputSample>
  private readonly previous = new Map<number, BrokerTotals>()
  private readonly loop: DemandLoop
  /** Of the last tick: registered brokers, and those whose metrics were read (null before one). */
  private lastSources: { brokers: number; scraped: number } | null = null

  constructor(
    private readonly client: SluiceClient,
    readonly intervalMs: number,
    windowMs = 10 * 60_000,
  ) {
    this.ring = new SampleRing(Math.max(2, Math.ceil(windowMs / intervalMs)))
    this.loop = new DemandLoop({ intervalMs, tick: async () => await this.sample() })
  }

  /** The samples so far; asking keeps the sampling going for another minute. */
  samples(): ThroughputSample[] {
    this.loop.demand()
    return this.ring.toArray()
  }

  /**
   * How many brokers the last samples came from, so a page can say why a chart is empty (no
   * broker serves an admin port, or none answered); null until the first tick ran.
   */
  sources(): { brokers: number; scraped: number } | null {
    return this.lastSources
  }

  get sampling(): boolean {
    return this.loop.active
  }

  close(): void {
    this.loop.close()
  }

  private async sample(): Promise<void> {
    const { brokers } = await this.client.admin().describeCluster()
    const scraped = await Promise.all(
      brokers
        .filter((b) => b.adminPort > 0)
        .map(async (b) => ({
          id: b.brokerId,
          t: Date.now(),
          parsed: await scrapeMetrics(b.host, b.adminPort, WANTED, Math.min(2_000, this.intervalMs)),
        })),
    )
    this.lastSources = { brokers: brokers.length, scraped: scraped.filter((s) => s.parsed !== undefined).length }
    const rate: Record<Field, number> = { bytesIn: 0, bytesOut: 0, recordsIn: 0, recordsOut: 0 }
    let any = false
    for (const s of scraped) {
      if (s.parsed === undefined) continue
      const totals = Object.fromEntries(
        (Object.keys(COUNTERS) as Field[]).map((f) => [f, sumOf(s.parsed!, COUNTERS[f])]),
      ) as Record<Field, number>
      const before = this.previous.get(s.id)
      this.previous.set(s.id, { t: s.t, totals })
      if (before === undefined || s.t <= before.t) continue
      any = true
      const seconds = (s.t - before.t) / 1000
      for (const f of Object.keys(COUNTERS) as Field[]) {
        const delta = totals[f] >= before.totals[f] ? totals[f] - before.totals[f] : totals[f]
        rate[f] += delta / seconds
      }
    }
    if (any) this.ring.push({ t: Date.now(), ...rate })
  }
}
