/**
 * One broker (/brokers/:id): its address, rack, health and ports, and the partitions it holds
 * (paginated by the server), marking where it leads and where it is out of sync.
 */
import { query } from '../api/client.js'
import type { BrokerDetail, BrokerPartition } from '../api/types.js'
import { type Column, DataTable } from '../components/data-table.js'
import { Pager } from '../components/pager.js'
import { Loaded, StateBadge } from '../components/states.js'
import { fmtInt } from '../format.js'
import { href, setSearch, useLocation } from '../router.js'
import { useApi } from '../use-api.js'

const columns: Column<BrokerPartition>[] = [
  { title: 'Topic', render: (p) => <a href={href.topic(p.topic)}>{p.topic}</a> },
  { title: 'Partition', num: true, render: (p) => p.partition },
  {
    title: 'Role',
    render: (p) => <span class={`badge ${p.role === 'leader' ? 'good' : 'neutral'}`}>{p.role}</span>,
  },
  {
    title: 'In sync',
    render: (p) => (p.inSync ? <span class="badge good">yes</span> : <span class="badge bad">no</span>),
  },
]

const port = (p: number | null | undefined): string => (p === undefined || p === null ? '—' : String(p))

export function BrokerView(props: { id: string }) {
  const { search } = useLocation()
  const page = Number(search.get('page') ?? '1') || 1
  const state = useApi<BrokerDetail>(`/api/brokers/${encodeURIComponent(props.id)}${query({ page, pageSize: 50 })}`)
  return (
    <section>
      <div class="crumbs">
        <a href="/brokers">Brokers</a> /
      </div>
      <h1>Broker {props.id}</h1>
      <Loaded state={state} what={`broker ${props.id}`}>
        {(b) => (
          <>
            <div class="card">
              <dl class="kv">
                <dt>Health</dt>
                <dd>{b.health === undefined ? 'unknown' : <StateBadge state={b.health} />}</dd>
                <dt>Address</dt>
                <dd>{b.host === null ? 'unknown (down)' : <code>{`${b.host}:${b.port}`}</code>}</dd>
                <dt>Kafka port</dt>
                <dd>{port(b.kafkaPort)}</dd>
                <dt>Admin port</dt>
                <dd>{port(b.adminPort)}</dd>
                <dt>Rack</dt>
                <dd>{b.rack ?? '—'}</dd>
                <dt>Controller</dt>
                <dd>{b.controller === true ? 'yes' : 'no'}</dd>
                <dt>Leaders / replicas</dt>
                <dd>
                  {fmtInt(b.leaders)} / {fmtInt(b.replicas)}
                </dd>
              </dl>
            </div>
            <h2>Partitions</h2>
            {b.partitions === undefined ? (
              <p class="muted">The server does not list this broker's partitions.</p>
            ) : (
              <>
                <DataTable
                  label="broker partitions"
                  columns={columns}
                  rows={b.partitions.items}
                  rowKey={(p) => `${p.topic}:${p.partition}`}
                  empty="This broker holds no partitions."
                />
                <Pager
                  page={b.partitions.page}
                  pageSize={b.partitions.pageSize}
                  total={b.partitions.total}
                  onPage={(n) => setSearch({ page: n })}
                />
              </>
            )}
          </>
        )}
      </Loaded>
    </section>
  )
}
