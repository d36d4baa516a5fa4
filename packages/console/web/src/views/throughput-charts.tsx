/**
 * Live bytes and records in/out, polled from /api/metrics/throughput (per-second rates the
 * server samples from the brokers' metrics). Until the server offers the route, says so.
 */
import type { Throughput } from '../api/types.js'
import { LineChart } from '../components/line-chart.js'
import { ErrorBox, Loading } from '../components/states.js'
import { fmtRate } from '../format.js'
import { useApi } from '../use-api.js'

export function ThroughputCharts() {
  const { data, error, reload } = useApi<Throughput>('/api/metrics/throughput', { pollMs: 2000 })
  if (data === undefined)
    return error !== undefined ? (
      <ErrorBox error={error} retry={reload} what="throughput metrics" />
    ) : (
      <Loading what="throughput" />
    )
  const times = data.samples.map((s) => s.t)
  return (
    <div class="charts" data-testid="throughput">
      {error !== undefined && <ErrorBox error={error} retry={reload} />}
      <LineChart
        title="Bytes"
        times={times}
        binary
        format={(v) => fmtRate(v, 'bytes')}
        series={[
          { name: 'in', tone: 'chart-a', values: data.samples.map((s) => s.bytesIn) },
          { name: 'out', tone: 'chart-b', values: data.samples.map((s) => s.bytesOut) },
        ]}
      />
      <LineChart
        title="Records"
        times={times}
        format={(v) => fmtRate(v, 'records')}
        series={[
          { name: 'in', tone: 'chart-a', values: data.samples.map((s) => s.recordsIn) },
          { name: 'out', tone: 'chart-b', values: data.samples.map((s) => s.recordsOut) },
        ]}
      />
    </div>
  )
}
