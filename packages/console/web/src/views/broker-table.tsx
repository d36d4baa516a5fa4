/** The brokers table shared by the overview and /brokers: address, rack, health, leader and replica counts. */
import type { BrokerRow } from '../api/types.js'
import { type Column, DataTable } from '../components/data-table.js'
import { StateBadge } from '../components/states.js'
import { fmtInt } from '../format.js'
import { href } from '../router.js'

export function BrokerTable(props: { brokers: readonly BrokerRow[] }) {
  const columns: Column<BrokerRow>[] = [
    {
      title: 'Id',
      num: true,
      render: (b) => <a href={href.broker(b.id)}>{b.id}</a>,
    },
    {
      title: 'Address',
      render: (b) =>
        b.host === null ? <span class="muted">unknown (down)</span> : <code>{`${b.host}:${b.port}`}</code>,
    },
    { title: 'Rack', render: (b) => b.rack ?? <span class="muted">—</span> },
    {
      title: 'Health',
      render: (b) => (b.health === undefined ? <span class="muted">unknown</span> : <StateBadge state={b.health} />),
    },
    { title: 'Leaders', num: true, render: (b) => fmtInt(b.leaders) },
    { title: 'Replicas', num: true, render: (b) => fmtInt(b.replicas) },
    {
      title: 'Out of sync',
      num: true,
      render: (b) => <span class={(b.outOfSyncReplicas ?? 0) > 0 ? 'bad' : ''}>{fmtInt(b.outOfSyncReplicas)}</span>,
    },
    {
      title: 'Kafka port',
      num: true,
      render: (b) => (b.kafkaPort === undefined || b.kafkaPort === null ? '—' : String(b.kafkaPort)),
    },
    {
      title: 'Admin port',
      num: true,
      render: (b) => (b.adminPort === undefined || b.adminPort === null ? '—' : String(b.adminPort)),
    },
  ]
  return <DataTable label="brokers" columns={columns} rows={props.brokers} rowKey={(b) => String(b.id)} />
}
