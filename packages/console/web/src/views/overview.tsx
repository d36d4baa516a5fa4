/**
 * Overview (/): the cluster at a glance, refreshed every few seconds: id, controller, counts,
 * under-replicated and offline partitions (red when not zero), brokers with health and leader /
 * replica counts, and live throughput charts from the brokers' metrics.
 */
import type { Cluster } from '../api/types.js'
import { Stat, zeroIsGood } from '../components/stat.js'
import { Loaded } from '../components/states.js'
import { fmtInt } from '../format.js'
import { useApi } from '../use-api.js'
import { BrokerTable } from './broker-table.js'
import { ThroughputCharts } from './throughput-charts.js'

export function OverviewView() {
  const cluster = useApi<Cluster>('/api/cluster', { pollMs: 5000 })
  return (
    <section>
      <h1>Cluster overview</h1>
      <Loaded state={cluster} what="the cluster">
        {(c) => (
          <>
            <div class="stats" data-testid="cluster-stats">
              <Stat label="Cluster id" id>
                {c.clusterId}
              </Stat>
              <Stat label="Controller id">{c.controller < 0 ? 'none' : String(c.controller)}</Stat>
              <Stat label="Brokers" href="/brokers">
                {fmtInt(c.brokers.length)}
              </Stat>
              <Stat label="Topics" href="/topics">
                {fmtInt(c.topics)}
              </Stat>
              <Stat label="Partitions">{fmtInt(c.partitions)}</Stat>
              <Stat label="Under-replicated" tone={zeroIsGood(c.underReplicatedPartitions)}>
                {fmtInt(c.underReplicatedPartitions)}
              </Stat>
              <Stat label="Offline" tone={zeroIsGood(c.offlinePartitions)}>
                {fmtInt(c.offlinePartitions)}
              </Stat>
            </div>
            <h2>Brokers</h2>
            <BrokerTable brokers={c.brokers} />
          </>
        )}
      </Loaded>
      <h2>Throughput</h2>
      <ThroughputCharts />
    </section>
  )
}
