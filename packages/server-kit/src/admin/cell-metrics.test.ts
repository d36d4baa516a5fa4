import { Counter, Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { CellCounter, CellHistogram } from './cell-metrics.js'

const BUCKETS = [0.001, 0.01, 0.1, 1]
const OBSERVED = [0.0005, 0.001, 0.002, 0.05, 0.5, 3, 0.02]

describe('cell metrics', () => {
  it('scrape exactly as prom-client Counter and Histogram do for the same recordings', async () => {
    const theirs = new Registry()
    const ours = new Registry()
    const spec = (registry: Registry) => ({ help: 'h', labelNames: ['method', 'code'], registers: [registry] })
    const c1 = new Counter({ name: 'x_total', ...spec(theirs) })
    const h1 = new Histogram({ name: 'x_seconds', buckets: BUCKETS, ...spec(theirs) })
    const c2 = new CellCounter({ name: 'x_total', ...spec(ours) })
    const h2 = new CellHistogram({ name: 'x_seconds', buckets: BUCKETS, ...spec(ours) })

    OBSERVED.forEach((v, i) => {
      const code = i % 3 === 0 ? 'OK' : 'FAILED'
      c1.labels('Fetch', code).inc()
      h1.labels('Fetch', code).observe(v)
      c2.cell('Fetch', code).inc()
      h2.cell('Fetch', code).observe(v)
    })
    c1.labels('Produce', 'OK').inc(5)
    c2.cell('Produce', 'OK').inc(5)
    c2.cell('Unused', 'OK') // resolved but never counted: no series, as with prom-client

    expect(await ours.metrics()).toBe(await theirs.metrics())
    // The JSON form too, but for prom-client's exemplar fields (always empty without exemplars).
    const withoutExemplars = (json: unknown): unknown =>
      JSON.parse(JSON.stringify(json, (k, v) => (k === 'exemplar' ? undefined : v)))
    expect(await ours.getMetricsAsJSON()).toEqual(withoutExemplars(await theirs.getMetricsAsJSON()))
    expect(await ours.metrics()).toMatch(/^x_seconds_bucket\{le="0.1",method="Fetch",code="OK"\} 3$/m)
  })

  it('reset zeroes every series', async () => {
    const registry = new Registry()
    const c = new CellCounter({ name: 'y_total', help: 'h', labelNames: ['topic'], registers: [registry] })
    c.cell('a').inc(2)
    expect(await registry.metrics()).toMatch(/^y_total\{topic="a"\} 2$/m)
    registry.resetMetrics()
    expect(await registry.metrics()).not.toMatch(/topic="a"/)
  })

  it('refuses a label count that does not match', () => {
    const c = new CellCounter({ name: 'z_total', help: 'h', labelNames: ['a', 'b'], registers: [] })
    expect(() => c.cell('only-one')).toThrow(/takes 2 label values, got 1/)
  })
})
