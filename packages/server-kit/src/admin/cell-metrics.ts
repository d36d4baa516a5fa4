/**
 * A counter and a histogram for per-request paths: the caller resolves a cell once per label set
 * and recording is a plain number add on it; the Prometheus series are built only when the
 * registry is scraped.
 *
 * Why not prom-client's own Counter and Histogram there: their label children are bound calls that
 * hash the label object on every inc() and observe() (measured warm: 90 ns per inc, 430 ns per
 * observe), and a broker records four to six of them per request. At 200 requests a second that
 * code runs cold after every idle gap and showed up in the brokers' profiles at a few percent of
 * their CPU (BENCHMARKS.md, issue 16). These classes register with the same prom-client Registry
 * and produce the same exposition, so a scrape cannot tell them apart.
 */
import type { Metric, Registry } from 'prom-client'

type Labels = Readonly<Record<string, string>>

interface SeriesValue {
  value: number
  /** `le` is a number, as prom-client reports it ('+Inf' aside). */
  labels: Readonly<Record<string, string | number>>
  metricName?: string
}

interface MetricSpec {
  readonly name: string
  readonly help: string
  readonly labelNames: readonly string[]
  readonly registers: readonly Registry[]
}

export class CounterCell {
  value = 0
  /** Set by the first inc(): a series appears once counted, as with prom-client. */
  counted = false

  constructor(readonly labels: Labels) {}

  inc(n = 1): void {
    this.value += n
    this.counted = true
  }
}

export class HistogramCell {
  /** Observations per bucket, not cumulative (the scrape adds them up); the last is +Inf. */
  readonly perBucket: number[]
  sum = 0
  count = 0

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.perBucket = new Array<number>(bounds.length + 1).fill(0)
  }

  observe(v: number): void {
    const bounds = this.bounds
    let i = 0
    while (i < bounds.length && v > bounds[i]!) i++
    this.perBucket[i]! += 1
    this.sum += v
    this.count += 1
  }
}

/** The cells of one metric by label values, and what prom-client's Registry calls on a scrape. */
abstract class CellMetric<C> {
  readonly name: string
  readonly help: string
  readonly aggregator = 'sum'
  private readonly labelNames: readonly string[]
  protected readonly cells = new Map<string, C>()

  constructor(spec: MetricSpec) {
    this.name = spec.name
    this.help = spec.help
    this.labelNames = spec.labelNames
    // The Registry reads metrics through get()/reset() and their name, help and type only
    // (duck-typed, as prom-client's own collectors are); its TypeScript type names its classes.
    for (const r of spec.registers) r.registerMetric(this as unknown as Metric)
  }

  /** The cell of these label values (in labelNames order), created on first use. */
  cell(...values: string[]): C {
    const key = values.join('\u0000')
    let c = this.cells.get(key)
    if (c === undefined) {
      if (values.length !== this.labelNames.length)
        throw new Error(`${this.name} takes ${this.labelNames.length} label values, got ${values.length}`)
      const labels: Record<string, string> = {}
      this.labelNames.forEach((n, i) => {
        labels[n] = values[i]!
      })
      c = this.newCell(labels)
      this.cells.set(key, c)
    }
    return c
  }

  protected abstract newCell(labels: Labels): C
}

export class CellCounter extends CellMetric<CounterCell> {
  readonly type = 'counter'

  protected newCell(labels: Labels): CounterCell {
    return new CounterCell(labels)
  }

  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: SeriesValue[] }> {
    const values: SeriesValue[] = []
    for (const c of this.cells.values()) if (c.counted) values.push({ value: c.value, labels: c.labels })
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values })
  }

  reset(): void {
    for (const c of this.cells.values()) {
      c.value = 0
      c.counted = false
    }
  }
}

export class CellHistogram extends CellMetric<HistogramCell> {
  readonly type = 'histogram'
  private readonly bounds: readonly number[]

  constructor(spec: MetricSpec & { readonly buckets: readonly number[] }) {
    super(spec)
    this.bounds = [...spec.buckets].sort((a, b) => a - b)
  }

  protected newCell(labels: Labels): HistogramCell {
    return new HistogramCell(labels, this.bounds)
  }

  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: SeriesValue[] }> {
    const values: SeriesValue[] = []
    const bucket = `${this.name}_bucket`
    for (const c of this.cells.values()) {
      if (c.count === 0) continue
      let cumulative = 0
      this.bounds.forEach((le, i) => {
        cumulative += c.perBucket[i]!
        values.push({ value: cumulative, labels: { le, ...c.labels }, metricName: bucket })
      })
      values.push({ value: c.count, labels: { le: '+Inf', ...c.labels }, metricName: bucket })
      values.push({ value: c.sum, labels: c.labels, metricName: `${this.name}_sum` })
      values.push({ value: c.count, labels: c.labels, metricName: `${this.name}_count` })
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values })
  }

  reset(): void {
    for (const c of this.cells.values()) {
      c.perBucket.fill(0)
      c.sum = 0
      c.count = 0
    }
  }
}
